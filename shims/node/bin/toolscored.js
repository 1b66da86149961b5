#!/usr/bin/env node
import { run } from './run.js';

run('toolscored');
