/** The table of `rollouts` subcommands: one import and one entry per command file (the action verbs come from the action catalog). */
import type { Command } from '../command';
import { clusterCommand } from './cluster';
import { lintCommand } from './lint';
import { schemaCommand } from './schema';
import { simulateCommand } from './simulate';
import { getCommand } from './get';
import { listCommand } from './list';
import { statusCommand } from './status';
import { logsCommand } from './logs';
import { actionCommands } from './actions';
import { controllerCommand } from './controller';
import { terminateCommand } from './terminate';
import { applyCommand } from './apply';
import { versionCommand } from './version';

export const commands: readonly Command[] = [
  clusterCommand,
  lintCommand,
  schemaCommand,
  simulateCommand,
  getCommand,
  listCommand,
  statusCommand,
  logsCommand,
  ...actionCommands,
  controllerCommand,
  terminateCommand,
  applyCommand,
  versionCommand,
];
