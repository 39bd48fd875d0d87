/**
 * Bounds the file descriptors the storage layer holds open: segment files are opened on demand
 * and kept in a least-recently-used list of at most `maxOpen` descriptors; opening one more
 * closes the least recently used unpinned one. An async operation pins its handle so its
 * descriptor stays open until it settles (a close requested meanwhile happens at unpin).
 */
import fs from 'node:fs';

export class FileHandle {
  /** -1 when closed. */
  fd = -1;
  pins = 0;
  /** The owner no longer needs the file: close it once unpinned, never reopen. */
  retired = false;

  constructor(
    readonly file: string,
    /** Called after the descriptor was closed by eviction (not by retire). */
    readonly onEvict: (() => void) | null = null,
  ) {}
}

export class FileHandleCache {
  /** Open handles, least recently used first (Map keeps insertion order). */
  private readonly lru = new Map<FileHandle, true>();
  private mostRecent: FileHandle | null = null;
  private opened = 0;
  private evicted = 0;

  constructor(readonly maxOpen: number) {
    if (!Number.isInteger(maxOpen) || maxOpen < 1) throw new RangeError(`maxOpen must be a positive integer, got ${maxOpen}`);
  }

  /** Descriptors currently open through this cache. */
  get openCount(): number {
    return this.lru.size;
  }

  /** Opens and evictions so far (for tests and metrics). */
  stats(): { open: number; opened: number; evicted: number; max: number } {
    return { open: this.lru.size, opened: this.opened, evicted: this.evicted, max: this.maxOpen };
  }

  /** The handle's descriptor, opening the file read-write when needed; marks it most recent. */
  fd(handle: FileHandle): number {
    if (handle.fd >= 0) {
      if (this.mostRecent !== handle) {
        this.lru.delete(handle);
        this.lru.set(handle, true);
        this.mostRecent = handle;
      }
      return handle.fd;
    }
    if (handle.retired) throw new Error(`${handle.file} was closed`);
    this.makeRoom();
    handle.fd = fs.openSync(handle.file, fs.constants.O_RDWR);
    this.opened++;
    this.lru.set(handle, true);
    this.mostRecent = handle;
    return handle.fd;
  }

  /** Creates (or truncates) the file and returns its descriptor. */
  create(handle: FileHandle): number {
    if (handle.fd >= 0) throw new Error(`${handle.file} is already open`);
    this.makeRoom();
    handle.fd = fs.openSync(handle.file, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_TRUNC, 0o644);
    this.opened++;
    this.lru.set(handle, true);
    this.mostRecent = handle;
    return handle.fd;
  }

  /** Keeps the descriptor open across an await; pair with unpin. Returns the descriptor. */
  pin(handle: FileHandle): number {
    const fd = this.fd(handle);
    handle.pins++;
    return fd;
  }

  unpin(handle: FileHandle): void {
    if (handle.pins <= 0) throw new Error(`${handle.file} is not pinned`);
    handle.pins--;
    if (handle.pins === 0 && handle.retired) this.closeNow(handle);
  }

  /** The owner is done with the file (closed, deleted or renamed): close now or at unpin. */
  retire(handle: FileHandle): void {
    handle.retired = true;
    if (handle.pins === 0) this.closeNow(handle);
  }

  /** Closes the descriptor (if open and unpinned) but lets it be reopened later. */
  release(handle: FileHandle): void {
    if (handle.pins === 0) this.closeNow(handle);
  }

  /** Closes every unpinned descriptor. */
  closeAll(): void {
    for (const handle of [...this.lru.keys()]) {
      if (handle.pins === 0) this.closeNow(handle);
    }
  }

  private makeRoom(): void {
    if (this.lru.size < this.maxOpen) return;
    for (const handle of this.lru.keys()) {
      if (this.lru.size < this.maxOpen) break;
      if (handle.pins > 0) continue;
      this.closeNow(handle);
      this.evicted++;
      handle.onEvict?.();
    }
  }

  private closeNow(handle: FileHandle): void {
    if (handle.fd < 0) return;
    const fd = handle.fd;
    handle.fd = -1;
    this.lru.delete(handle);
    if (this.mostRecent === handle) this.mostRecent = null;
    fs.closeSync(fd);
  }
}
