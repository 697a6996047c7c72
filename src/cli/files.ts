/** Reading the files a command names, with one wording for why one cannot be read. */

/** A readable reason for a failed read ("no such file", "it is a directory, not a file", ...). */
export function readError(e: unknown): string {
  const code = (e as NodeJS.ErrnoException)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file';
    case 'EISDIR':
      return 'it is a directory, not a file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    default:
      return e instanceof Error ? e.message : String(e);
  }
}
