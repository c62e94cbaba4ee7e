/**
 * The kanban board as it is drawn: each column with its items in order, and where each card's
 * arrow buttons move it (the end of the column beside it, or one place up or down in its own).
 */
import type { ColumnRow } from "../db/todos.ts";

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
