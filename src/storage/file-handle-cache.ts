/**
 * Bounds the file descriptors the storage layer holds open: segment files are opened on demand
 * and kept in a least-recently-used list of at most `maxOpen` descriptors; opening one more
 * closes the least recently used unpinned one. An async operation pins its handle so its
 * descriptor stays open until it settles (a close requested meanwhile happens at unpin).
 *
 * The list is intrusive (each open handle links to its neighbours): every append touches its
 * segment's handle, and with hundreds of partitions taking turns a Map-ordered list paid a
 * delete and an insert per touch.
 */
import fs from 'node:fs';

export class FileHandle {
  /** -1 when closed. */
  fd = -1;
  pins = 0;
  /** The owner no longer needs the file: close it once unpinned, never reopen. */
  retired = false;
  /** Neighbours in the cache's open list (less and more recently used); null at the ends. */
  older: FileHandle | null = null;
  newer: FileHandle | null = null;

  constructor(
    readonly file: string,
    /** Called after the descriptor was closed by eviction (not by retire). */
    readonly onEvict: (() => void) | null = null,
  ) {}
}

export class FileHandleCache {
  /** The open list: least recently used first. */
  private oldest: FileHandle | null = null;
  private newest: FileHandle | null = null;
  private size = 0;
  private opened = 0;
  private evicted = 0;

  constructor(readonly maxOpen: number) {
    if (!Number.isInteger(maxOpen) || maxOpen < 1) throw new RangeError(`maxOpen must be a positive integer, got ${maxOpen}`);
  }

  /** Descriptors currently open through this cache. */
  get openCount(): number {
    return this.size;
  }

  /** Opens and evictions so far (for tests and metrics). */
  stats(): { open: number; opened: number; evicted: number; max: number } {
    return { open: this.size, opened: this.opened, evicted: this.evicted, max: this.maxOpen };
  }

  /** The handle's descriptor, opening the file read-write when needed; marks it most recent. */
  fd(handle: FileHandle): number {
    if (handle.fd >= 0) {
      if (this.newest !== handle) {
        this.unlink(handle);
        this.append(handle);
      }
      return handle.fd;
    }
    if (handle.retired) throw new Error(`${handle.file} was closed`);
    this.makeRoom();
    handle.fd = fs.openSync(handle.file, fs.constants.O_RDWR);
    this.opened++;
    this.append(handle);
    return handle.fd;
  }

  /** Creates (or truncates) the file and returns its descriptor. */
  create(handle: FileHandle): number {
    if (handle.fd >= 0) throw new Error(`${handle.file} is already open`);
    this.makeRoom();
    handle.fd = fs.openSync(handle.file, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_TRUNC, 0o644);
    this.opened++;
    this.append(handle);
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
    for (let h = this.oldest; h !== null; ) {
      const next = h.newer;
      if (h.pins === 0) this.closeNow(h);
      h = next;
    }
  }

  private makeRoom(): void {
    for (let h = this.oldest; h !== null && this.size >= this.maxOpen; ) {
      const next = h.newer;
      if (h.pins === 0) {
        this.closeNow(h);
        this.evicted++;
        h.onEvict?.();
      }
      h = next;
    }
  }

  private closeNow(handle: FileHandle): void {
    if (handle.fd < 0) return;
    const fd = handle.fd;
    handle.fd = -1;
    this.unlink(handle);
    fs.closeSync(fd);
  }

  /** Puts an unlinked handle at the most recent end. */
  private append(handle: FileHandle): void {
    handle.older = this.newest;
    handle.newer = null;
    if (this.newest) this.newest.newer = handle;
    else this.oldest = handle;
    this.newest = handle;
    this.size++;
  }

  private unlink(handle: FileHandle): void {
    if (handle.older) handle.older.newer = handle.newer;
    else this.oldest = handle.newer;
    if (handle.newer) handle.newer.older = handle.older;
    else this.newest = handle.older;
    handle.older = null;
    handle.newer = null;
    this.size--;
  }
}
