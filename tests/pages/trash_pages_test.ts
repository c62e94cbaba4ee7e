/**
 * The trash pages, in process: a project's trash (who sees it, Restore only where the contract
 * allows, refusals in the user's words), the Undo offered right after a delete on a page, and
 * the admin's deleted projects.
 */
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";
import {
  api,
  createComment,
  createNote,
  createThread,
  expectJson,
  getJson,
} from "../helpers/api.ts";
import { page, post, withTeam } from "./page_requests.ts";

type T = Awaited<ReturnType<typeof testApp>>;

async function createItem(t: T, cookie: string, projectId: number, title: string) {
  const res = await api(t, "POST", `/api/projects/${projectId}/todos/items`, {
    cookie,
    body: { title },
  });
  return expectJson(res, 201).item as { id: number; columnId: number };
}

async function itemIds(t: T, cookie: string, projectId: number): Promise<number[]> {
  const { items } = await getJson(t, cookie, `/api/projects/${projectId}/todos/items`);
  return items.map((i: { id: number }) => i.id);
}

async function trashOf(t: T, cookie: string, projectId: number) {
  return (await getJson(t, cookie, `/api/projects/${projectId}/trash`)).items as Array<
    { type: string; id: number }
  >;
}

Deno.test("a to-do deleted on its page says so with Undo, which puts it back on the board", async () => {
  await withTeam(async (t, { alice, project }) => {
    const base = `/projects/${project.id}`;
    const item = await createItem(t, alice.cookie, project.id, "Book the venue");

    const deleted = await post(t, alice.cookie, `${base}/todos/${item.id}/delete`);
    assert.equal(deleted.status, 303);
    assert.equal(deleted.location, `${base}/todos?deleted=item-${item.id}`);
    assert.deepEqual(await itemIds(t, alice.cookie, project.id), []);

    const board = await page(t, alice.cookie, deleted.location!);
    assert.equal(board.status, 200);
    assert.match(board.html, /role="status"[^>]*data-deleted="item-\d+"/);
    assert.match(board.html, /To-do moved to the trash\./);
    assert.ok(board.html.includes(`action="${base}/trash/item/${item.id}/restore"`));
    assert.ok(board.html.includes(`name="back" value="${base}/todos"`));
    assert.match(board.html, />Undo<\/button>/);

    const undone = await post(t, alice.cookie, `${base}/trash/item/${item.id}/restore`, {
      back: `${base}/todos`,
    });
    assert.equal(undone.status, 303);
    assert.equal(undone.location, `${base}/todos?restored=item-${item.id}#item-${item.id}`);
    assert.deepEqual(await itemIds(t, alice.cookie, project.id), [item.id]);
    const again = await page(t, alice.cookie, undone.location!);
    assert.match(again.html, /data-restored="item-\d+"/);
    assert.match(again.html, /To-do restored\./);
    assert.match(again.html, /Book the venue/);
  });
});

Deno.test("every page delete offers Undo on the page it leads to, in the user's language", async () => {
  await withTeam(async (t, { owner, alice, project }) => {
    const base = `/projects/${project.id}`;
    await api(t, "PATCH", "/api/users/me", { cookie: alice.cookie, body: { locale: "ja" } });
    const thread = await createThread(t, alice.cookie, project.id, { title: "Plan" });
    const comment = await createComment(t, alice.cookie, project.id, thread.id, {
      body: "A reply",
    });
    const note = await createNote(t, alice.cookie, project.id, { title: "Memo", body: "x" });

    const removedComment = await post(
      t,
      alice.cookie,
      `${base}/board/${thread.id}/comments/${comment.id}/delete`,
    );
    assert.equal(
      removedComment.location,
      `${base}/board/${thread.id}?deleted=comment-${comment.id}`,
    );
    const threadPage = await page(t, alice.cookie, removedComment.location!);
    assert.match(threadPage.html, /コメントをゴミ箱に移動しました。/);
    assert.match(threadPage.html, />取り消す<\/button>/);
    const undone = await post(t, alice.cookie, `${base}/trash/comment/${comment.id}/restore`, {
      back: `${base}/board/${thread.id}`,
    });
    assert.equal(
      undone.location,
      `${base}/board/${thread.id}?restored=comment-${comment.id}#comment-${comment.id}`,
    );
    assert.match((await page(t, alice.cookie, undone.location!)).html, /A reply/);

    const removedNote = await post(t, alice.cookie, `${base}/notes/${note.id}/delete`);
    assert.equal(removedNote.location, `${base}/notes?deleted=note-${note.id}`);
    // The notice names what was deleted, whoever looks at the address.
    const notes = await page(t, owner.cookie, removedNote.location!);
    assert.match(notes.html, /Note moved to the trash\./);
    assert.match(notes.html, /data-undo="note-\d+"/);
  });
});

Deno.test("the trash page lists what was deleted, by whom, until when, with Restore where allowed", async () => {
  await withTeam(async (t, { owner, alice, bob, viewer, project }) => {
    const base = `/projects/${project.id}`;
    const mine = await createNote(t, alice.cookie, project.id, { title: "Alice's note", body: "" });
    const bobs = await createNote(t, bob.cookie, project.id, { title: "Bob's note", body: "" });
    await post(t, alice.cookie, `${base}/notes/${mine.id}/delete`);
    await post(t, bob.cookie, `${base}/notes/${bobs.id}/delete`);

    const asOwner = await page(t, owner.cookie, `${base}/trash`);
    assert.equal(asOwner.status, 200);
    assert.match(asOwner.html, /<h1>Trash<\/h1>/);
    assert.match(asOwner.html, /aria-current="page">Trash</);
    assert.match(asOwner.html, new RegExp(`data-trash="note-${bobs.id}"`));
    assert.match(asOwner.html, /<td>Note<\/td><td>Bob&#39;s note<\/td><td>bob<\/td>/);
    // Purged after TRASH_DAYS (30) from the fixed clock's 2026-11-22.
    assert.match(asOwner.html, /datetime="2026-12-22T08:30:00.000Z"/);
    assert.match(asOwner.html, new RegExp(`data-restore="note-${mine.id}"`));
    assert.match(asOwner.html, new RegExp(`data-restore="note-${bobs.id}"`));

    // A member restores what they deleted or wrote, not another member's.
    const asAlice = await page(t, alice.cookie, `${base}/trash`);
    assert.match(asAlice.html, new RegExp(`data-restore="note-${mine.id}"`));
    assert.doesNotMatch(asAlice.html, new RegExp(`data-restore="note-${bobs.id}"`));

    await api(t, "PATCH", "/api/users/me", { cookie: owner.cookie, body: { locale: "ja" } });
    const ja = await page(t, owner.cookie, `${base}/trash`);
    assert.match(ja.html, /<h1>ゴミ箱<\/h1>/);
    assert.match(ja.html, />元に戻す<\/button>/);
    assert.match(ja.html, /<th>完全に削除される日時<\/th>/);

    // A viewer has no Trash tab and is told the trash is not theirs, with 403.
    const project_ = await page(t, viewer.cookie, base);
    assert.doesNotMatch(project_.html, new RegExp(`href="${base}/trash"`));
    assert.match((await page(t, alice.cookie, base)).html, new RegExp(`href="${base}/trash"`));
    const asViewer = await page(t, viewer.cookie, `${base}/trash`);
    assert.equal(asViewer.status, 403);
    assert.match(asViewer.html, /role="alert">Viewers cannot see the trash\.</);
    assert.doesNotMatch(asViewer.html, /data-restore=/);
    assert.doesNotMatch(asViewer.html, /Bob&#39;s note/);

    const restored = await post(t, owner.cookie, `${base}/trash/note/${bobs.id}/restore`);
    assert.equal(restored.status, 303);
    assert.equal(restored.location, `${base}/trash?restored=note-${bobs.id}`);
    const after = await page(t, owner.cookie, restored.location!);
    assert.match(after.html, /ノートを元に戻しました。/);
    assert.ok(after.html.includes(`href="${base}/notes/${bobs.id}"`));
    assert.doesNotMatch(after.html, new RegExp(`data-trash="note-${bobs.id}"`));
  });
});

Deno.test("a refused restore is said in the user's words with the API's status and changes nothing", async () => {
  await withTeam(async (t, { owner, alice, bob, viewer, outsider, project }) => {
    const base = `/projects/${project.id}`;
    const bobs = await createNote(t, bob.cookie, project.id, { title: "Bob's", body: "" });
    await post(t, bob.cookie, `${base}/notes/${bobs.id}/delete`);

    const byAlice = await post(t, alice.cookie, `${base}/trash/note/${bobs.id}/restore`);
    assert.equal(byAlice.status, 403);
    assert.match(byAlice.html, /role="alert">Only the one who deleted it, its author or an owner/);
    const byViewer = await post(t, viewer.cookie, `${base}/trash/note/${bobs.id}/restore`);
    assert.equal(byViewer.status, 403);
    assert.doesNotMatch(byViewer.html, /data-restore=/);

    const live = await createNote(t, bob.cookie, project.id, { title: "Live", body: "" });
    const notInTrash = await post(t, owner.cookie, `${base}/trash/note/${live.id}/restore`);
    assert.equal(notInTrash.status, 404);
    assert.match(notInTrash.html, /role="alert">This item is no longer in the trash/);
    const unknownType = await post(t, owner.cookie, `${base}/trash/column/${bobs.id}/restore`);
    assert.equal(unknownType.status, 404);

    // A comment whose thread is in the trash waits for its thread: 409.
    const thread = await createThread(t, alice.cookie, project.id, { title: "T" });
    const comment = await createComment(t, alice.cookie, project.id, thread.id, { body: "C" });
    await post(t, alice.cookie, `${base}/board/${thread.id}/comments/${comment.id}/delete`);
    await post(t, alice.cookie, `${base}/board/${thread.id}/delete`);
    const orphan = await post(t, alice.cookie, `${base}/trash/comment/${comment.id}/restore`);
    assert.equal(orphan.status, 409);
    assert.match(orphan.html, /its thread is in the trash\. Restore the thread\./);

    // An outsider gets the 404 page for the trash and its forms.
    assert.equal((await page(t, outsider.cookie, `${base}/trash`)).status, 404);
    const byOutsider = await post(t, outsider.cookie, `${base}/trash/note/${bobs.id}/restore`);
    assert.equal(byOutsider.status, 404);
    assert.match(byOutsider.html, /Page not found/);

    const trash = await trashOf(t, owner.cookie, project.id);
    assert.deepEqual(trash.map((e) => `${e.type}-${e.id}`).sort(), [
      `comment-${comment.id}`,
      `note-${bobs.id}`,
      `thread-${thread.id}`,
    ]);

    // A way back outside the project is not followed: the trash page instead.
    const offsite = await post(t, bob.cookie, `${base}/trash/note/${bobs.id}/restore`, {
      back: "//evil.example/x",
    });
    assert.equal(offsite.location, `${base}/trash?restored=note-${bobs.id}`);
  });
});

Deno.test("the admin page lists deleted projects and restores one; others get the 404 page", async () => {
  await withTeam(async (t, { admin, owner, project }) => {
    const removed = await post(t, owner.cookie, `/projects/${project.id}/delete`);
    assert.equal(removed.status, 303);

    const list = await page(t, admin.cookie, "/admin");
    assert.match(list.html, /<h2 id="deleted-projects">Deleted projects<\/h2>/);
    assert.match(
      list.html,
      new RegExp(`data-deleted-project="${project.id}"><td>Apollo</td><td>olga</td>`),
    );
    assert.ok(list.html.includes(`action="/admin/trash/projects/${project.id}/restore"`));

    const byOwner = await post(t, owner.cookie, `/admin/trash/projects/${project.id}/restore`);
    assert.equal(byOwner.status, 404);
    assert.equal((await page(t, owner.cookie, `/projects/${project.id}`)).status, 404);

    const restored = await post(t, admin.cookie, `/admin/trash/projects/${project.id}/restore`);
    assert.equal(restored.status, 303);
    assert.equal(restored.location, `/admin?restored=project-${project.id}`);
    const after = await page(t, admin.cookie, restored.location!);
    assert.match(after.html, /Project restored\./);
    assert.ok(after.html.includes(`href="/projects/${project.id}"`));
    assert.match(after.html, /No deleted projects\./);
    assert.equal((await page(t, owner.cookie, `/projects/${project.id}`)).status, 200);

    const twice = await post(t, admin.cookie, `/admin/trash/projects/${project.id}/restore`);
    assert.equal(twice.status, 404);
    assert.match(twice.html, /role="alert">This item is no longer in the trash/);
  });
});
