/**
 * The kanban board as it is drawn: each column with its items in order, and where each card's
 * arrow buttons move it (the end of the column beside it, or one place up or down in its own).
 */
import type { ColumnRow } from "../../db/planning/todos.ts";

/** A place on the board: a column and a position in it. */
export interface BoardPlace {
  columnId: number;
  orderIndex: number;
}

/** The ways a card's arrows move it. */
export type Direction = "left" | "up" | "down" | "right";

/** A card and where each arrow moves it, or null where it cannot go. */
export interface BoardCard<I> {
  item: I;
  moves: Record<Direction, BoardPlace | null>;
}

/** A column and its cards in order. */
export interface BoardLane<I> {
  column: ColumnRow;
  cards: BoardCard<I>[];
}

/** The board of `columns` (by position) and `items` (by column, then order). */
export function boardOf<I extends { columnId: number }>(
  columns: ColumnRow[],
  items: I[],
): BoardLane<I>[] {
  const counts = new Map<number, number>();
  for (const item of items) counts.set(item.columnId, (counts.get(item.columnId) ?? 0) + 1);
  const end = (column: ColumnRow | undefined) =>
    column ? { columnId: column.id, orderIndex: counts.get(column.id) ?? 0 } : null;
  return columns.map((column, columnIndex) => {
    const own = items.filter((item) => item.columnId === column.id);
    const at = (orderIndex: number) => ({ columnId: column.id, orderIndex });
    const cards = own.map((item, index) => ({
      item,
      moves: {
        left: end(columns[columnIndex - 1]),
        up: index > 0 ? at(index - 1) : null,
        down: index < own.length - 1 ? at(index + 1) : null,
        right: end(columns[columnIndex + 1]),
      },
    }));
    return { column, cards };
  });
}

/** How a column's items are ordered on the board. */
export type LaneOrder = "board" | "completed";

/**
 * The cards of one stretch of a column (a page of it), where the arrows go by each item's
 * own `orderIndex` and the columns' totals (`totals`: live items by column id), so a card
 * loaded on a later page moves as one of the first. A column ordered by completion has no up
 * or down: its order is not the one a move sets.
 */
export function cardsOf<I extends { columnId: number; orderIndex: number }>(
  columns: ColumnRow[],
  columnId: number,
  items: I[],
  totals: ReadonlyMap<number, number>,
  order: LaneOrder,
): BoardCard<I>[] {
  const at = columns.findIndex((c) => c.id === columnId);
  const total = totals.get(columnId) ?? 0;
  const end = (column: ColumnRow | undefined) =>
    column ? { columnId: column.id, orderIndex: totals.get(column.id) ?? 0 } : null;
  const ordered = order === "board";
  return items.map((item) => ({
    item,
    moves: {
      left: end(columns[at - 1]),
      up: ordered && item.orderIndex > 0 ? { columnId, orderIndex: item.orderIndex - 1 } : null,
      down: ordered && item.orderIndex < total - 1
        ? { columnId, orderIndex: item.orderIndex + 1 }
        : null,
      right: end(columns[at + 1]),
    },
  }));
}
