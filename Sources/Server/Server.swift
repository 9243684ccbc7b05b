// Server module.
