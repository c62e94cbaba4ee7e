/**
 * This instance among several on one PostgreSQL database: a number of its own, held as an
 * advisory lock while it runs (db/kernel/presence.ts), that marks what it takes over. Others see at
 * once when it stopped, however it stopped, and take over what it held. On SQLite there is one
 * instance and no number.
 */
import type { Engine, Listening } from "../../db/kernel/engine.ts";
import { PRESENCE_LOCK_CLASS } from "../../db/kernel/presence.ts";

/** How many numbers an instance draws before it gives up (each a 1 in 2^31 chance taken). */
const DRAWS = 8;

/** This instance's presence. */
export interface Presence {
  /** The instance's number while it is held; null before `start`, after `stop`, on SQLite. */
  id(): number | null;
  /** Draws a number and holds it (PostgreSQL); resolves once held. */
  start(): Promise<void>;
  /** Lets go of the number: others may take over what it marked. */
  stop(): Promise<void>;
}

/** The presence of this instance on `db`. */
export function createPresence(db: Engine): Presence {
  let held: { id: number; lock: Listening } | null = null;
  return {
    id: () => held?.id ?? null,
    async start() {
      if (!db.hold || held) return;
      for (let draw = 0; draw < DRAWS; draw++) {
        const id = 1 + Math.floor(Math.random() * 0x7ffffffe);
        const lock = await db.hold(PRESENCE_LOCK_CLASS, id);
        if (lock) {
          held = { id, lock };
          return;
        }
      }
      throw new Error("Cannot take an instance number: the database refused every one drawn");
    },
    async stop() {
      const was = held;
      held = null;
      await was?.lock.close();
    },
  };
}
