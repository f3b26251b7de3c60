"""tools/class-report: the class at a glance (see the script's help)."""
