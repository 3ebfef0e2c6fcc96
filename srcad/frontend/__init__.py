"""From a function object to a checked tree."""
