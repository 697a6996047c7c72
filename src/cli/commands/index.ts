/** The table of `rollouts` subcommands: one import and one entry per command file. */
import type { Command } from '../command';
import { clusterCommand } from './cluster';
import { lintCommand } from './lint';
import { schemaCommand } from './schema';
import { simulateCommand } from './simulate';
import { getCommand } from './get';
import { listCommand } from './list';
import { statusCommand } from './status';
import { promoteCommand } from './promote';
import { abortCommand } from './abort';
import { retryCommand } from './retry';
import { pauseCommand } from './pause';
import { resumeCommand } from './resume';
import { restartCommand } from './restart';
import { setImageCommand } from './set-image';
import { undoCommand } from './undo';
import { controllerCommand } from './controller';
import { terminateCommand } from './terminate';
import { applyCommand } from './apply';
import { versionCommand } from './version';

export const commands: readonly Command[] = [clusterCommand, lintCommand, schemaCommand, simulateCommand,
  getCommand, listCommand, statusCommand, promoteCommand, abortCommand, retryCommand, pauseCommand, resumeCommand, restartCommand, setImageCommand, undoCommand, controllerCommand, terminateCommand, applyCommand, versionCommand];
