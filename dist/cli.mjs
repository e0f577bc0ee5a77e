#!/usr/bin/env node
import { createRequire } from "node:module";
createRequire(import.meta.url)("./cli-start.cjs");
