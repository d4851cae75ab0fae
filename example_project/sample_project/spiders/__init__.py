"""The example project's spiders."""
