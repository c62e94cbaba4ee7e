/** An explicit `null` clears a nullable field, on create and on update, everywhere. */
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";
import {
  api,
  createProject,
  expectJson,
  getJson,
  type Json,
  signUp,
  team,
} from "../helpers/api.ts";

function accepts(schema: Json, type: string): boolean {
  if (!schema) return false;
  if (schema.type === type || (Array.isArray(schema.type) && schema.type.includes(type))) {
    return true;
  }
  if (type === "null" && schema.nullable === true) return true;
  return [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].some((s: Json) => accepts(s, type));
}

Deno.test("PATCH and POST /api/projects take description: null as an empty description", async () => {
  const t = await testApp();
  try {
    const { cookie } = await signUp(t, "ann@example.com");
    const created = await api(t, "POST", "/api/projects", {
      cookie,
      body: { name: "Apollo", description: null },
    });
    assert.equal(expectJson(created, 201).project.description, "");
    const project = await createProject(t, cookie, "Gemini", "Two seats");
    const cleared = await api(t, "PATCH", `/api/projects/${project.id}`, {
      cookie,
      body: { description: null },
    });
    assert.equal(expectJson(cleared, 200).project.description, "");
    const again = await getJson(t, cookie, `/api/projects/${project.id}`);
    assert.equal(again.project.description, "");
    assert.equal(again.project.name, "Gemini", "an absent name stays");
  } finally {
    await t.close();
  }
});

Deno.test("every nullable field of notes, to-dos, milestones, events and meetings is cleared by null", async () => {
  const t = await testApp();
  try {
    const { alice, bob, project } = await team(t);
    const p = `/api/projects/${project.id}`;
    const as = { cookie: alice.cookie };
    const send = async (method: string, path: string, body: Json, status: number) =>
      expectJson(await api(t, method, path, { ...as, body }), status);

    const note = (await send("POST", `${p}/notes`, { title: "N", body: "b", tags: null }, 201))
      .note;
    assert.deepEqual(note.tags, []);

    const milestone = (await send("POST", `${p}/milestones`, {
      title: "M",
      description: "d",
      dueDate: "2026-12-01",
    }, 201)).milestone;
    const milestoneCleared = (await send("PATCH", `${p}/milestones/${milestone.id}`, {
      description: null,
      dueDate: null,
    }, 200)).milestone;
    assert.equal(milestoneCleared.description, null);
    assert.equal(milestoneCleared.dueDate, null);
    const bare = (await send("POST", `${p}/milestones`, {
      title: "M2",
      description: null,
      dueDate: null,
    }, 201)).milestone;
    assert.deepEqual([bare.description, bare.dueDate], [null, null]);

    const full = {
      description: "d",
      assigneeId: bob.user.id,
      startDate: "2026-11-01",
      dueDate: "2026-11-30",
      tags: ["x"],
      milestoneId: milestone.id,
    };
    const nulls = Object.fromEntries(Object.keys(full).map((k) => [k, null]));
    const item = (await send("POST", `${p}/todos/items`, { title: "I", ...full }, 201)).item;
    const itemCleared = (await send("PATCH", `${p}/todos/items/${item.id}`, nulls, 200)).item;
    const created = (await send("POST", `${p}/todos/items`, { title: "I2", ...nulls }, 201)).item;
    for (const cleared of [itemCleared, created]) {
      assert.deepEqual(
        Object.fromEntries(Object.keys(full).map((k) => [k, cleared[k]])),
        { ...nulls, tags: [] },
      );
    }

    const event = (await send("POST", `${p}/calendar/events`, {
      title: "E",
      description: "d",
      startAt: "2026-11-23T09:00:00Z",
      endAt: "2026-11-23T10:00:00Z",
    }, 201)).event;
    const eventCleared = (await send("PATCH", `${p}/calendar/events/${event.id}`, {
      description: null,
    }, 200)).event;
    assert.equal(eventCleared.description, null);

    const meetingTimes = { startAt: "2026-11-24T09:00:00Z", endAt: "2026-11-24T10:00:00Z" };
    const meeting = (await send("POST", `${p}/meetings`, {
      title: "Mt",
      ...meetingTimes,
      inviteeIds: [],
      location: "Room 1",
      minutes: "m",
    }, 201)).meeting;
    const meetingCleared = (await send("PATCH", `${p}/meetings/${meeting.id}`, {
      location: null,
      minutes: null,
    }, 200)).meeting;
    assert.deepEqual([meetingCleared.location, meetingCleared.minutes], [null, null]);
    const meetingBare = (await send("POST", `${p}/meetings`, {
      title: "Mt2",
      startAt: "2026-11-25T09:00:00Z",
      endAt: "2026-11-25T10:00:00Z",
      inviteeIds: [],
      location: null,
      minutes: null,
    }, 201)).meeting;
    assert.deepEqual([meetingBare.location, meetingBare.minutes], [null, null]);
  } finally {
    await t.close();
  }
});

Deno.test("the OpenAPI document: every input field whose resource field is nullable accepts null", async () => {
  const t = await testApp();
  try {
    const doc = expectJson(await api(t, "GET", "/api/openapi.json"), 200);
    const resolve = (schema: Json): Json =>
      schema?.$ref ? doc.components.schemas[schema.$ref.split("/").pop()] : schema;
    const checked: string[] = [];
    for (const [path, operations] of Object.entries<Json>(doc.paths)) {
      for (const [method, operation] of Object.entries<Json>(operations)) {
        const input = resolve(operation.requestBody?.content?.["application/json"]?.schema);
        if (!input?.properties) continue;
        for (const [status, response] of Object.entries<Json>(operation.responses)) {
          if (!status.startsWith("2")) continue;
          const answer = response.content?.["application/json"]?.schema;
          for (const wrapped of Object.values<Json>(answer?.properties ?? {})) {
            if (!wrapped.$ref) continue;
            const resource = resolve(wrapped);
            for (const [field, schema] of Object.entries<Json>(input.properties)) {
              if (!accepts(resource.properties?.[field], "null")) continue;
              checked.push(`${method} ${path} ${field}`);
              assert.ok(accepts(resolve(schema), "null"), `${method} ${path}: ${field}`);
            }
          }
        }
      }
    }
    // The walk found the nullable fields (it would pass vacuously otherwise).
    for (const expected of ["description", "assigneeId", "dueDate", "location", "minutes"]) {
      assert.ok(checked.some((c) => c.endsWith(` ${expected}`)), expected);
    }
  } finally {
    await t.close();
  }
});
