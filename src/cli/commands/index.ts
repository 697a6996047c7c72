/** The table of `rollouts` subcommands: one import and one entry per command file. */
import type { Command } from '../command';

export const commands: readonly Command[] = [];
