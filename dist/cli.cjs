#!/usr/bin/env node
require("./cli-start.cjs");
