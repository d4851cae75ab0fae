"""Research code beside the chain: corpora, label alignment, metrics, evaluation, benchmarks and training.

Nothing in the chain (``page``, ``labellers``, ``extraction``, ``integration``) imports this package; it imports
the chain.  Only :mod:`.train` imports torch.
"""
