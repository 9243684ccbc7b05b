// Guidance module.
