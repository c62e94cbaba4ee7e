/** Unit tests of `boardOf`: each column's cards, and where each card's arrows move it. */
import assert from "node:assert/strict";
import type { Column } from "../../../domain/planning/todos.ts";
import { boardOf } from "../../../domain/planning/todo_board.ts";

const column = (id: number) => ({ id, key: null, name: `column ${id}` }) as unknown as Column;
const item = (id: number, columnId: number) => ({ id, columnId });

Deno.test("boardOf: each column gets its own items, in order, and an empty column none", () => {
  const board = boardOf([column(1), column(2), column(3)], [item(10, 1), item(11, 3), item(12, 1)]);
  assert.deepEqual(board.map((lane) => lane.column.id), [1, 2, 3]);
  assert.deepEqual(board.map((lane) => lane.cards.map((card) => card.item.id)), [[10, 12], [], [
    11,
  ]]);
});

Deno.test("boardOf: left and right move a card to the end of the column beside it", () => {
  const board = boardOf([column(1), column(2), column(3)], [
    item(10, 1),
    item(11, 2),
    item(12, 2),
    item(13, 3),
  ]);
  const moves = board[1]!.cards[0]!.moves;
  assert.deepEqual(moves.left, { columnId: 1, orderIndex: 1 });
  assert.deepEqual(moves.right, { columnId: 3, orderIndex: 1 });
  // The first column has nothing on its left, the last nothing on its right.
  assert.equal(board[0]!.cards[0]!.moves.left, null);
  assert.deepEqual(board[0]!.cards[0]!.moves.right, { columnId: 2, orderIndex: 2 });
  assert.equal(board[2]!.cards[0]!.moves.right, null);
});

Deno.test("boardOf: up and down move a card one place within its column, not past either end", () => {
  const board = boardOf([column(1)], [item(10, 1), item(11, 1), item(12, 1)]);
  const [first, middle, last] = board[0]!.cards.map((card) => card.moves);
  assert.equal(first!.up, null);
  assert.deepEqual(first!.down, { columnId: 1, orderIndex: 1 });
  assert.deepEqual(middle!.up, { columnId: 1, orderIndex: 0 });
  assert.deepEqual(middle!.down, { columnId: 1, orderIndex: 2 });
  assert.deepEqual(last!.up, { columnId: 1, orderIndex: 1 });
  assert.equal(last!.down, null);
  // A board of one column: a lone card goes nowhere.
  const alone = boardOf([column(1)], [item(10, 1)])[0]!.cards[0]!.moves;
  assert.deepEqual(alone, { left: null, up: null, down: null, right: null });
});
