// ChatIntelligence module.
