/** The table of `rollouts` subcommands: one import and one entry per command file. */
import type { Command } from '../command';
import { clusterCommand } from './cluster';
import { lintCommand } from './lint';
import { schemaCommand } from './schema';
import { simulateCommand } from './simulate';

export const commands: readonly Command[] = [clusterCommand, lintCommand, schemaCommand, simulateCommand];
