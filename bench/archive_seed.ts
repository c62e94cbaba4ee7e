/** Fills a project of a benchmark's data directory with SQL (bench/archive_bench.ts). */
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";

const MIB = 1024 * 1024;
const PNG_HEAD = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const AT = "2026-11-22T08:30:00.000Z";

/** Fills project `projectId` with SQL; returns the counts an import should report. */
export function seed(
  dataDir: string,
  q: { projectId: number; ownerId: number; items: number; fileMib: number; fileSizeMib: number },
): Record<string, number> {
  const sql = new DatabaseSync(join(dataDir, "collab.db"));
  sql.exec("PRAGMA busy_timeout = 10000");
  const per100 = Math.max(1, Math.floor(q.items / 100));
  const counts: Record<string, number> = {
    threads: per100 * 5,
    comments: per100 * 10,
    notes: per100 * 5,
    chat: per100 * 20,
    columns: 3,
    items: q.items,
    milestones: Math.min(per100, 50),
    events: per100 * 2,
    meetings: per100,
    files: Math.floor(q.fileMib / q.fileSizeMib),
    activity: 0,
  };
  const p = q.projectId;
  const run = (text: string) => sql.prepare(text);
  const tx = (fn: () => void) => {
    sql.exec("BEGIN IMMEDIATE");
    fn();
    sql.exec("COMMIT");
  };
  const words = "design release plan test review data api sprint budget 設計 会議 資料".split(" ");
  const sentence = (i: number, n: number) =>
    Array.from({ length: n }, (_, k) => words[(i * 7 + k * 13) % words.length]).join(" ");
  const stamp = (i: number) =>
    new Date(Date.parse("2025-01-01T00:00:00.000Z") + i * 60_000)
      .toISOString();

  // Files: bytes written into place as uploads are, then recorded.
  const fileIds: number[] = [];
  const block = new Uint8Array(q.fileSizeMib * MIB);
  for (let at = 0; at < block.length; at += 65536) {
    crypto.getRandomValues(block.subarray(at, Math.min(block.length, at + 65536)));
  }
  block.set(PNG_HEAD, 0);
  Deno.mkdirSync(join(dataDir, "files", String(p)), { recursive: true });
  const addFile = run(
    `INSERT INTO files (project_id, uploader_id, name, stored_name, content_type, size, source,
     created_at) VALUES (?, ?, ?, ?, 'image/png', ?, 'upload', ?) RETURNING id`,
  );
  for (let i = 0; i < counts.files!; i++) {
    const stored = `${p}/${crypto.randomUUID()}.png`;
    block[8] = i & 0xff;
    block[9] = (i >> 8) & 0xff;
    Deno.writeFileSync(join(dataDir, "files", stored), block);
    fileIds.push(
      (addFile.get(p, q.ownerId, `scan-${i}.png`, stored, block.length, stamp(i)) as {
        id: number;
      }).id,
    );
  }

  tx(() => {
    const columns = ["todo", "in_progress", "done"].map((key, i) =>
      (run(
        `INSERT INTO todo_columns (project_id, name, key, position, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
      ).get(p, key, key, i, AT, AT) as { id: number }).id
    );
    const milestones: number[] = [];
    const addMilestone = run(
      `INSERT INTO milestones (project_id, creator_id, title, description, due_date, created_at,
       updated_at) VALUES (?, ?, ?, ?, '2026-12-01', ?, ?) RETURNING id`,
    );
    for (let i = 0; i < counts.milestones!; i++) {
      milestones.push(
        (addMilestone.get(p, q.ownerId, `M${i}`, sentence(i, 8), stamp(i), stamp(i)) as {
          id: number;
        }).id,
      );
    }
    const addItem = run(
      `INSERT INTO todo_items (project_id, column_id, creator_id, title, description, assignee_id,
       priority, due_date, tags, order_index, completed, completed_at, milestone_id, created_at,
       updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    );
    const attach = run(
      `INSERT INTO attachments (project_id, file_id, subject_type, subject_id, created_at)
       VALUES (?, ?, 'item', ?, ?)`,
    );
    const addActivity = run(
      `INSERT INTO activity (project_id, kind, actor_id, subject_type, subject_id, summary,
       created_at) VALUES (?, 'todo_created', ?, 'item', ?, ?, ?)`,
    );
    for (let i = 0; i < q.items; i++) {
      const done = i % 4 === 0;
      const title = `Item ${i}: ${sentence(i, 5)}`;
      const id = (addItem.get(
        p,
        columns[i % 3]!,
        q.ownerId,
        title,
        sentence(i, 30),
        i % 2 ? q.ownerId : null,
        ["low", "normal", "high"][i % 3]!,
        i % 5 ? "2026-12-24" : null,
        JSON.stringify([words[i % words.length], "bench"]),
        Math.floor(i / 3),
        done ? 1 : 0,
        done ? stamp(i + 1) : null,
        milestones.length && i % 7 === 0 ? milestones[i % milestones.length]! : null,
        stamp(i),
        stamp(i + 1),
      ) as { id: number }).id;
      if (fileIds.length && i % 1000 === 0) attach.run(p, fileIds[i % fileIds.length]!, id, AT);
      if (i % 2 === 0) {
        addActivity.run(p, q.ownerId, id, title, stamp(i));
        counts.activity!++;
      }
    }
  });
  tx(() => {
    const addThread = run(
      `INSERT INTO threads (project_id, author_id, title, body, category, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'general', ?, ?) RETURNING id`,
    );
    const addComment = run(
      `INSERT INTO comments (project_id, thread_id, author_id, body, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?)`,
    );
    for (let i = 0; i < counts.threads!; i++) {
      const id =
        (addThread.get(p, q.ownerId, `Thread ${i}`, sentence(i, 60), stamp(i), stamp(i)) as {
          id: number;
        }).id;
      addComment.run(p, id, q.ownerId, sentence(i + 1, 20), stamp(i + 1), stamp(i + 1));
      addComment.run(p, id, q.ownerId, sentence(i + 2, 20), stamp(i + 2), stamp(i + 2));
    }
    const addNote = run(
      `INSERT INTO notes (project_id, author_id, title, body, tags, created_at, updated_at)
       VALUES (?, ?, ?, ?, '["bench"]', ?, ?)`,
    );
    for (let i = 0; i < counts.notes!; i++) {
      addNote.run(p, q.ownerId, `Note ${i}`, sentence(i, 120), stamp(i), stamp(i));
    }
    const addChat = run(
      `INSERT INTO chat_messages (project_id, author_id, text, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?)`,
    );
    for (let i = 0; i < counts.chat!; i++) {
      addChat.run(p, q.ownerId, sentence(i, 12), stamp(i), stamp(i));
    }
    const addEvent = run(
      `INSERT INTO calendar_events (project_id, creator_id, title, description, start_at, end_at,
       created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (let i = 0; i < counts.events!; i++) {
      addEvent.run(p, q.ownerId, `Event ${i}`, sentence(i, 10), stamp(i), stamp(i + 60), AT, AT);
    }
    const addMeeting = run(
      `INSERT INTO meetings (project_id, creator_id, title, start_at, end_at, location, minutes,
       created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'Room', ?, ?, ?) RETURNING id`,
    );
    const invite = run("INSERT INTO meeting_invitees (meeting_id, user_id) VALUES (?, ?)");
    for (let i = 0; i < counts.meetings!; i++) {
      const id = (addMeeting.get(
        p,
        q.ownerId,
        `Meeting ${i}`,
        stamp(i),
        stamp(i + 60),
        sentence(i, 40),
        AT,
        AT,
      ) as {
        id: number;
      }).id;
      invite.run(id, q.ownerId);
    }
  });
  sql.close();
  return counts;
}
