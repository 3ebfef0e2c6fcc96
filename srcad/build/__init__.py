"""From a checked call to compiled derivative code, and running it."""
