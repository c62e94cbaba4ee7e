/** A project holding some of everything, for the export and import tests. */
import {
  api,
  createComment,
  createNote,
  createThread,
  createTodo,
  expectJson,
  expectNoContent,
  type Json,
  PDF_BYTES,
  PNG_BYTES,
  postFile,
  sendChat,
  type Team,
  team,
  todoColumns,
  uploadFile,
} from "./api.ts";
import type { TestApp } from "./app.ts";

/** The team, the project and the ids of what it holds. */
export interface RichProject extends Team {
  /** The live files' ids: an upload, an attachment upload, a Japanese-named upload. */
  fileIds: number[];
  /** A thread deleted before the export (it must not be exported). */
  deletedThreadId: number;
}

/**
 * Fills the team's project: threads (one pinned, one with an attachment and comments), a
 * comment with an uploaded attachment, notes with tags, chat, a custom column, to-dos moved,
 * completed, assigned, tagged and linked to a milestone, an event, a meeting with invitees,
 * files, and things deleted (a thread, a file) that an export leaves out. The clock moves a
 * minute between writes, so creation order and timestamps differ.
 */
export async function richProject(t: TestApp): Promise<RichProject> {
  const cast = await team(t);
  const { owner, alice, bob, project } = cast;
  const p = `/api/projects/${project.id}`;
  const tick = () => t.clock.advance(60_000);
  const post = async (cookie: string, path: string, body: unknown) =>
    expectJson(await api(t, "POST", `${p}${path}`, { cookie, body }), 201);

  const upload = await uploadFile(t, owner.cookie, project.id, "plan.pdf", PDF_BYTES);
  tick();
  const japanese = await uploadFile(t, alice.cookie, project.id, "設計図.png", PNG_BYTES);
  tick();
  const doomed = await uploadFile(t, alice.cookie, project.id, "old.png", PNG_BYTES);
  tick();
  const thread = await createThread(t, alice.cookie, project.id, {
    title: "Kick-off: 開始",
    body: "Let's *start*.",
    fileIds: [upload.id],
  });
  tick();
  await createThread(t, owner.cookie, project.id, {
    title: "Rules",
    body: "Be kind.",
    category: "announcement",
    pinned: true,
  });
  tick();
  const gone = await createThread(t, bob.cookie, project.id, { title: "Gone soon" });
  tick();
  const comment = await createComment(t, bob.cookie, project.id, thread.id, { body: "Agreed." });
  tick();
  const attached = await postFile(
    t,
    bob.cookie,
    `${p}/board/comments/${comment.id}/attachments`,
    "sketch.png",
    PNG_BYTES,
  );
  const attachment = expectJson(attached, 200).attachments[0];
  tick();
  await createComment(t, owner.cookie, project.id, thread.id, { body: "Then let's go." });
  tick();
  await createNote(t, alice.cookie, project.id, { tags: ["meeting", "q1"], pinned: true });
  tick();
  await createNote(t, owner.cookie, project.id, { title: "Glossary", body: "- API: …" });
  tick();
  await sendChat(t, alice.cookie, project.id, "Hello @bob@example.com", {
    fileIds: [japanese.id],
  });
  tick();
  await sendChat(t, bob.cookie, project.id, "こんにちは");
  tick();
  const columns = await todoColumns(t, owner.cookie, project.id);
  const review = (await post(owner.cookie, "/todos/columns", { name: "Review" })).column;
  tick();
  const milestone = (await post(owner.cookie, "/milestones", {
    title: "Beta",
    description: "First users",
    dueDate: "2026-12-20",
  })).milestone;
  tick();
  const first = await createTodo(t, owner.cookie, project.id, {
    title: "Draft the spec",
    description: "All of it",
    assigneeId: alice.user.id,
    priority: "high",
    startDate: "2026-11-23",
    dueDate: "2026-11-30",
    tags: ["spec", "urgent"],
    milestoneId: milestone.id,
    fileIds: [upload.id],
  });
  tick();
  const second = await createTodo(t, alice.cookie, project.id, { title: "Review the spec" });
  tick();
  const third = await createTodo(t, bob.cookie, project.id, {
    title: "Ship",
    milestoneId: milestone.id,
  });
  tick();
  expectJson(
    await api(t, "POST", `${p}/todos/items/${second.id}/move`, {
      cookie: owner.cookie,
      body: { columnId: review.id, orderIndex: 0 },
    }),
    200,
  );
  tick();
  expectJson(
    await api(t, "POST", `${p}/todos/items/${third.id}/toggle-complete`, { cookie: bob.cookie }),
    200,
  );
  tick();
  expectJson(
    await api(t, "POST", `${p}/todos/items/reorder`, {
      cookie: owner.cookie,
      body: { projectId: project.id, columnId: columns[0].id, itemIds: [first.id] },
    }),
    200,
  );
  tick();
  // A checklist: one entry checked, the order changed, one removed (positions close up).
  const checklist = `${p}/todos/items/${first.id}/checklist`;
  const entry = async (text: string) =>
    (await post(alice.cookie, `/todos/items/${first.id}/checklist`, { text })).entry;
  const outline = await entry("Outline");
  tick();
  const chapter = await entry("日本語の章");
  tick();
  const dropped = await entry("Dropped");
  tick();
  const sources = await entry("Sources");
  tick();
  expectJson(
    await api(t, "PATCH", `${checklist}/${chapter.id}`, {
      cookie: bob.cookie,
      body: { done: true },
    }),
    200,
  );
  tick();
  expectNoContent(await api(t, "DELETE", `${checklist}/${dropped.id}`, { cookie: owner.cookie }));
  tick();
  expectJson(
    await api(t, "POST", `${checklist}/reorder`, {
      cookie: owner.cookie,
      body: { entryIds: [sources.id, outline.id, chapter.id] },
    }),
    200,
  );
  tick();
  await post(owner.cookie, "/calendar/events", {
    title: "Offsite",
    description: "Kyoto",
    startAt: "2026-12-01T09:00:00.000Z",
    endAt: "2026-12-02T17:00:00.000Z",
  });
  tick();
  await post(owner.cookie, "/meetings", {
    title: "Weekly",
    startAt: "2026-11-25T10:00:00.000Z",
    endAt: "2026-11-25T11:00:00.000Z",
    inviteeIds: [alice.user.id, bob.user.id],
    location: "Room 1",
    minutes: "None yet",
  });
  tick();
  expectNoContent(
    await api(t, "DELETE", `${p}/board/threads/${gone.id}`, { cookie: owner.cookie }),
  );
  tick();
  expectNoContent(await api(t, "DELETE", `${p}/files/${doomed.id}`, { cookie: owner.cookie }));
  tick();
  return {
    ...cast,
    fileIds: [upload.id, japanese.id, attachment.id as number],
    deletedThreadId: gone.id,
  };
}

/** Downloads a project's export as `cookie`: the response (body read) and its bytes. */
export async function exportProject(
  t: TestApp,
  cookie: string,
  projectId: number,
): Promise<{ res: Response; bytes: Uint8Array }> {
  const res = await t.app.request(`/api/projects/${projectId}/export`, { headers: { cookie } });
  return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
}

/** Imports `bytes` as the zip body, as `cookie`. */
export async function importZip(t: TestApp, cookie: string, bytes: Uint8Array) {
  return await api(t, "POST", "/api/projects/import", {
    cookie,
    raw: bytes as BodyInit,
    headers: { "content-type": "application/zip" },
  });
}

/** The parsed project.json of an archive's entries. */
export function projectJsonOf(entries: Map<string, Uint8Array>): Json {
  return JSON.parse(new TextDecoder().decode(entries.get("project.json")!));
}
