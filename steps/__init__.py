"""Step definitions: thin glue from Gherkin lines to ``mqcn_suite.world.World``."""
