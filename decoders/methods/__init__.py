"""One module per registered decoder."""
