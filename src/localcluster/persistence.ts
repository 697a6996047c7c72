/**
 * Durable state for `--data-dir`: a snapshot file plus an append-only log of changes.
 * A change is acknowledged only once its whole record is written and fsynced: a write that fails
 * part way (a full disk, a short write) is cut back off the log and the change fails, so the log
 * never holds a torn record in its middle. On load, a torn last record (a crash mid-write: never
 * acknowledged) is dropped with a warning; a bad record anywhere else refuses to start, naming the
 * file and line, and leaves the files as they are.
 * Compaction writes a new snapshot to a temporary file, fsyncs it, renames it over the old one,
 * fsyncs the directory, and only then empties the log.
 */
import * as fs from 'node:fs';
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

/** The file operations a write goes through (tests replace them to inject faults). */
export interface FileIo {
  writeSync(fd: number, buffer: Uint8Array, offset: number, length: number): number;
  fsyncSync(fd: number): void;
  ftruncateSync(fd: number, length: number): void;
}

export interface PersistenceOptions {
  io?: Partial<FileIo>;
  /** Told what load had to leave out (a torn last record). */
  onWarning?: (message: string) => void;
}

const isRecord = (r: unknown): r is LogRecord => {
  const x = r as Partial<Record<string, unknown>> | null;
  if (typeof x !== 'object' || x === null || !Number.isInteger(x.rv) || typeof x.typeKey !== 'string') return false;
  if (x.op === 'put') return typeof x.obj === 'object' && x.obj !== null && typeof (x.obj as any).metadata?.name === 'string';
  return x.op === 'delete' && typeof x.namespace === 'string' && typeof x.name === 'string';
};

export class Persistence {
  private logFd: number | undefined;
  /** The log's length after its last whole record: a failed write is cut back to it. */
  private logSize = 0;
  private logRecords = 0;
  private readonly io: FileIo;

  constructor(
    private readonly dir: string,
    private readonly compactEvery = 10_000,
    private readonly options: PersistenceOptions = {},
  ) {
    fs.mkdirSync(dir, { recursive: true });
    this.io = { writeSync: fs.writeSync, fsyncSync: fs.fsyncSync, ftruncateSync: fs.ftruncateSync, ...options.io };
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
    if (fs.existsSync(this.snapshotPath)) {
      const text = fs.readFileSync(this.snapshotPath, 'utf8');
      let snap: LoadedState;
      try {
        snap = JSON.parse(text) as LoadedState;
        if (!Number.isInteger(snap?.rv) || !Array.isArray(snap.objects)) throw new Error('it is not a snapshot (rv and objects)');
      } catch (e) {
        throw new Error(`cannot read ${this.snapshotPath}: ${(e as Error).message}; the data directory was left as it is`);
      }
      rv = snap.rv;
      for (const o of snap.objects) objects.set(keyOf(o.typeKey, o.obj.metadata?.namespace, o.obj.metadata?.name), o);
    }
    if (fs.existsSync(this.logPath)) {
      const text = fs.readFileSync(this.logPath, 'utf8');
      let offset = 0;
      let line = 0;
      while (offset < text.length) {
        line++;
        const end = text.indexOf('\n', offset);
        const last = end < 0 || text.slice(end + 1).trim() === '';
        const body = text.slice(offset, end < 0 ? text.length : end);
        const at = offset;
        offset = end < 0 ? text.length : end + 1;
        if (!body.trim()) continue;
        let rec: unknown;
        try {
          rec = JSON.parse(body);
        } catch {
          rec = undefined;
        }
        if (end < 0 || !isRecord(rec)) {
          // A record is whole once its newline is written: only the last one can be torn by a crash.
          const where = `${this.logPath} line ${line} (byte ${Buffer.byteLength(text.slice(0, at))})`;
          if (last) {
            this.options.onWarning?.(`dropped the torn last record of ${where}: a write that was never acknowledged`);
            break;
          }
          throw new Error(
            `${where} is not a valid change record, and records follow it: the change log is corrupt; the data directory was left as it is (move it aside or repair the line to start)`,
          );
        }
        rv = Math.max(rv, rec.rv);
        if (rec.op === 'put')
          objects.set(keyOf(rec.typeKey, rec.obj.metadata?.namespace, rec.obj.metadata?.name), { typeKey: rec.typeKey, obj: rec.obj });
        else objects.delete(keyOf(rec.typeKey, rec.namespace || undefined, rec.name));
      }
    }
    return { rv, objects: [...objects.values()] };
  }

  /** Writes the whole state as the new snapshot and starts an empty log. */
  compact(state: LoadedState): void {
    const tmp = `${this.snapshotPath}.tmp`;
    const fd = fs.openSync(tmp, 'w');
    try {
      this.writeAll(fd, Buffer.from(JSON.stringify(state)));
      this.io.fsyncSync(fd);
    } catch (e) {
      fs.closeSync(fd);
      fs.rmSync(tmp, { force: true });
      throw e;
    }
    fs.closeSync(fd);
    fs.renameSync(tmp, this.snapshotPath);
    this.syncDir();
    this.openLog();
    this.io.ftruncateSync(this.logFd!, 0);
    this.io.fsyncSync(this.logFd!);
    this.logSize = 0;
    this.logRecords = 0;
  }

  /** Appends a record and fsyncs it; throws, leaving the log as it was, when it cannot. */
  append(record: LogRecord): void {
    this.openLog();
    const fd = this.logFd!;
    const bytes = Buffer.from(`${JSON.stringify(record)}\n`);
    try {
      this.writeAll(fd, bytes);
      this.io.fsyncSync(fd);
    } catch (e) {
      try {
        // Cut the partial record off, so a later record never follows a torn one.
        this.io.ftruncateSync(fd, this.logSize);
        this.io.fsyncSync(fd);
      } catch {
        // The log cannot be repaired now: drop the descriptor, so the next write starts by cutting again.
        this.closeLog();
      }
      throw new Error(
        `cannot save the change to ${this.logPath} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): it was not made`,
      );
    }
    this.logSize += bytes.length;
    this.logRecords++;
  }

  /**
   * Compacts once the log has grown enough. The changes are already safe in the log, so a failed
   * compaction (a full disk) is only a warning; it is tried again after as many records again.
   */
  compactIfDue(state: () => LoadedState): void {
    if (this.logRecords < this.compactEvery) return;
    try {
      this.compact(state());
    } catch (e) {
      this.logRecords = 0;
      this.options.onWarning?.(
        `could not compact ${this.dir} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); the change log keeps every change`,
      );
    }
  }

  close(): void {
    this.closeLog();
  }

  private openLog(): void {
    if (this.logFd !== undefined) return;
    const fd = fs.openSync(this.logPath, 'a');
    const size = fs.fstatSync(fd).size;
    // The first write of this process, or after a failed repair: cut anything after the last whole record.
    if (this.logFd === undefined && this.knownSize !== undefined && size > this.knownSize) {
      try {
        this.io.ftruncateSync(fd, this.knownSize);
      } catch (e) {
        fs.closeSync(fd);
        throw new Error(
          `cannot repair ${this.logPath} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): the change was not made`,
        );
      }
    }
    this.logFd = fd;
    this.logSize = this.knownSize ?? size;
    this.knownSize = undefined;
  }
  /** The log's good length, kept while the descriptor is closed after a failed repair. */
  private knownSize: number | undefined;

  private closeLog(): void {
    if (this.logFd === undefined) return;
    this.knownSize = this.logSize;
    try {
      fs.closeSync(this.logFd);
    } catch {
      // already unusable
    }
    this.logFd = undefined;
  }

  private writeAll(fd: number, bytes: Buffer): void {
    let off = 0;
    while (off < bytes.length) {
      const n = this.io.writeSync(fd, bytes, off, bytes.length - off);
      if (!(n > 0)) throw Object.assign(new Error('the write made no progress'), { code: 'EIO' });
      off += n;
    }
  }

  private syncDir(): void {
    try {
      const fd = fs.openSync(this.dir, 'r');
      try {
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      // some filesystems refuse fsync on a directory; the rename is still atomic
    }
  }
}
