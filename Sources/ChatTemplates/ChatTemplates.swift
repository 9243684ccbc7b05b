// ChatTemplates module.
