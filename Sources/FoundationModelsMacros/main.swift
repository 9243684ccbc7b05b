// Placeholder until the plugin entry point lands.
