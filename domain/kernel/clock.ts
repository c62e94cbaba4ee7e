/** The source of "now" that domain code is given; tests pass a fixed or stepping clock. */
export interface Clock {
  /** The current instant. */
  now(): Date;
}

/** A clock that always answers `at` until moved with `set` or `advance` (for tests). */
export class FixedClock implements Clock {
  #at: number;

  constructor(at: Date | string) {
    this.#at = new Date(at).getTime();
  }

  now(): Date {
    return new Date(this.#at);
  }

  /** Moves the clock to `at`. */
  set(at: Date | string): void {
    this.#at = new Date(at).getTime();
  }

  /** Moves the clock forward by `ms` milliseconds. */
  advance(ms: number): void {
    this.#at += ms;
  }
}
