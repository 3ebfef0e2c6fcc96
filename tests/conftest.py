"""Shared pytest configuration for the srcad test suite."""
