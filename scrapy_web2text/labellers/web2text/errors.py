"""The error of a model file, of the networks' or the language identifier's: its own module, so that the loaders
of either import nothing else to raise it."""


class ModelError(ValueError):
    """A model file is missing, corrupt or of another format."""
