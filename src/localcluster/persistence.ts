/**
 * Durable state for `--data-dir`: a snapshot file plus an append-only log of changes.
 * Every change is appended and fsynced before the API answers, so nothing acknowledged to a
 * client is lost by a crash; a torn last line (a crash mid-write) is ignored on load.
 * Compaction writes a new snapshot to a temporary file, fsyncs it, renames it over the old one,
 * fsyncs the directory, and only then empties the log.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync, ftruncateSync } from 'node:fs';
import { join } from 'node:path';

export interface StoredObject {
  typeKey: string;
  obj: any;
}

export type LogRecord =
  | { rv: number; op: 'put'; typeKey: string; obj: any }
  | { rv: number; op: 'delete'; typeKey: string; namespace: string; name: string };

export interface LoadedState {
  rv: number;
  objects: StoredObject[];
}

export class Persistence {
  private logFd: number | undefined;
  private logRecords = 0;

  constructor(
    private readonly dir: string,
    private readonly compactEvery = 10_000,
  ) {
    mkdirSync(dir, { recursive: true });
  }

  private get snapshotPath(): string {
    return join(this.dir, 'snapshot.json');
  }
  private get logPath(): string {
    return join(this.dir, 'changes.log');
  }

  /** Reads the snapshot and replays the log over it. */
  load(): LoadedState {
    let rv = 0;
    const objects = new Map<string, StoredObject>();
    const keyOf = (typeKey: string, ns: string | undefined, name: string) => `${typeKey}|${ns ?? ''}|${name}`;
    if (existsSync(this.snapshotPath)) {
      const text = readFileSync(this.snapshotPath, 'utf8');
      let snap: LoadedState;
      try {
        snap = JSON.parse(text) as LoadedState;
      } catch (e) {
        throw new Error(`cannot read ${this.snapshotPath}: ${(e as Error).message}`);
      }
      rv = snap.rv;
      for (const o of snap.objects) objects.set(keyOf(o.typeKey, o.obj.metadata?.namespace, o.obj.metadata?.name), o);
    }
    if (existsSync(this.logPath)) {
      const lines = readFileSync(this.logPath, 'utf8').split('\n');
      for (const line of lines) {
        if (!line.trim()) continue;
        let rec: LogRecord;
        try {
          rec = JSON.parse(line) as LogRecord;
        } catch {
          break; // a torn final write: it was never acknowledged
        }
        rv = Math.max(rv, rec.rv);
        if (rec.op === 'put') objects.set(keyOf(rec.typeKey, rec.obj.metadata?.namespace, rec.obj.metadata?.name), { typeKey: rec.typeKey, obj: rec.obj });
        else objects.delete(keyOf(rec.typeKey, rec.namespace || undefined, rec.name));
      }
    }
    return { rv, objects: [...objects.values()] };
  }

  /** Writes the whole state as the new snapshot and starts an empty log. */
  compact(state: LoadedState): void {
    const tmp = `${this.snapshotPath}.tmp`;
    const fd = openSync(tmp, 'w');
    try {
      writeSync(fd, JSON.stringify(state));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.snapshotPath);
    this.syncDir();
    if (this.logFd === undefined) this.logFd = openSync(this.logPath, 'a');
    ftruncateSync(this.logFd, 0);
    fsyncSync(this.logFd);
    this.logRecords = 0;
  }

  append(record: LogRecord): void {
    if (this.logFd === undefined) this.logFd = openSync(this.logPath, 'a');
    writeSync(this.logFd, `${JSON.stringify(record)}\n`);
    fsyncSync(this.logFd);
    this.logRecords++;
  }

  needsCompaction(): boolean {
    return this.logRecords >= this.compactEvery;
  }

  close(): void {
    if (this.logFd !== undefined) closeSync(this.logFd);
    this.logFd = undefined;
  }

  private syncDir(): void {
    try {
      const fd = openSync(this.dir, 'r');
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    } catch {
      // some filesystems refuse fsync on a directory; the rename is still atomic
    }
  }
}
