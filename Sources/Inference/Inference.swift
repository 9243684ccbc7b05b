// Inference module.
