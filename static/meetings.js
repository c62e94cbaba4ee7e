// The meeting forms' live conflict check; the forms work without this file (conflicts are
// then listed on the meeting's page after saving).
// - Whenever the start, the end or the invitees change, the form asks
//   GET /api/projects/{id}/meetings/check and lists what the participants are already
//   committed to. Requests are debounced; an answer that arrives after a newer question is
//   dropped, so the list always matches the form as it is now.
// - A conflict in a project the reader cannot see (title null) is "a private item in
//   another project". Everything is inserted as text, never as HTML.
// - Times are typed in the reader's time zone (`data-time-zone`; `datetime-local` has none)
//   and read as the server reads them (domain/kernel/time_zones.ts): a time in a daylight-saving gap
//   moves forward by the gap, a time in an overlap is the earlier instant.

for (const form of document.querySelectorAll("form[data-meeting-form]")) {
  if (form instanceof HTMLFormElement) enhance(form);
}

/** @param {HTMLFormElement} form */
function enhance(form) {
  const panel = form.querySelector("[data-meeting-conflicts]");
  const list = panel?.querySelector("[data-conflict-list]");
  const status = panel?.querySelector("[data-conflict-status]");
  if (!(panel instanceof HTMLElement) || !list || !(status instanceof HTMLElement)) return;
  const projectId = form.dataset.project ?? "";
  const exclude = form.dataset.exclude ?? "";
  const organiser = form.dataset.organiser ?? "";
  const strings = readJson(form.dataset.strings, {});
  const members = readJson(form.dataset.members, {});
  const locale = form.dataset.locale === "ja" ? "ja-JP" : "en-GB";
  const timeZone = form.dataset.timeZone || "UTC";
  const dateTime = new Intl.DateTimeFormat(locale, {
    dateStyle: "medium",
    timeStyle: "short",
    timeZone,
  });
  const time = new Intl.DateTimeFormat(locale, { timeStyle: "short", timeZone });
  const date = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: "UTC" });
  const wall = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  });
  /** How far the zone's clocks are ahead of UTC at `ms`. */
  const offset = (/** @type {number} */ ms) => {
    const whole = Math.floor(ms / 1000) * 1000;
    /** @type {Record<string, number>} */
    const f = {};
    for (const p of wall.formatToParts(whole)) f[p.type] = Number(p.value);
    return Date.UTC(f.year, f.month - 1, f.day, f.hour, f.minute, f.second) - whole;
  };
  /** The calendar date an instant falls on in the zone. */
  const dayOf = (/** @type {string} */ iso) => {
    const ms = Date.parse(iso);
    return new Date(ms + offset(ms)).toISOString().slice(0, 10);
  };
  /** The number of the latest question; older answers are dropped. */
  let asked = 0;
  /** @type {AbortController | null} */
  let pending = null;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  /** The query of the list shown, to skip asking the same thing twice. */
  let shown = "";

  /** A `datetime-local` value (a time in the zone) as a UTC instant, or null. */
  const asUtc = (/** @type {string} */ value) => {
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.test(value)) return null;
    const naive = Date.parse(`${value}Z`);
    if (Number.isNaN(naive)) return null;
    const day = 36 * 3_600_000;
    const before = offset(naive - day);
    const fits = [before, offset(naive + day)].map((o) => naive - o)
      .filter((t) => t + offset(t) === naive).sort((a, b) => a - b);
    return new Date(fits[0] ?? naive - before).toISOString();
  };

  /** The check's query for the form as it is, or null when the time is incomplete. */
  function query() {
    const data = new FormData(form);
    const startAt = asUtc(String(data.get("startAt") ?? "").trim());
    const endAt = asUtc(String(data.get("endAt") ?? "").trim());
    if (!startAt || !endAt || Date.parse(endAt) < Date.parse(startAt)) return null;
    const ids = new Set(data.getAll("inviteeIds").map(String).filter((id) => /^\d+$/.test(id)));
    // Editing someone else's meeting: its organiser is a participant too.
    if (organiser) ids.add(organiser);
    const params = new URLSearchParams({ startAt, endAt, inviteeIds: [...ids].join(",") });
    if (exclude) params.set("excludeMeetingId", exclude);
    return params.toString();
  }

  /** A span for people, as the server writes it (in the reader's zone). */
  function span(/** @type {string} */ start, /** @type {string} */ end) {
    if (start.length === 10) {
      const [from, to] = [start, end].map((d) => date.format(new Date(`${d}T00:00:00Z`)));
      return start === end ? from : `${from} – ${to}`;
    }
    if (start === end) return dateTime.format(new Date(start));
    const sameDay = dayOf(start) === dayOf(end);
    const until = (sameDay ? time : dateTime).format(new Date(end));
    return `${dateTime.format(new Date(start))} – ${until}`;
  }

  function conflictHref(/** @type {any} */ c) {
    const base = `/projects/${encodeURIComponent(String(c.projectId))}`;
    const id = encodeURIComponent(String(c.id));
    if (c.type === "meeting") return `${base}/meetings/${id}`;
    if (c.type === "event") return `${base}/calendar/events/${id}`;
    return `${base}/todos/${id}`;
  }

  /** Shows `conflicts`, or the hint when there is nothing to check. */
  function render(/** @type {any[] | null} */ conflicts) {
    list.replaceChildren();
    if (conflicts === null) {
      setStatus("idle", strings.hint ?? "");
      return;
    }
    for (const c of conflicts) {
      const item = document.createElement("li");
      item.className = "conflict";
      item.dataset.conflict = `${c.type}-${c.id}`;
      item.dataset.user = String(c.userId);
      const kind = document.createElement("span");
      kind.className = "tag";
      kind.textContent = strings[c.type] ?? String(c.type);
      /** @type {HTMLElement} */
      let title;
      if (c.title === null || c.title === undefined) {
        title = document.createElement("span");
        title.className = "private";
        title.textContent = strings.private ?? "";
      } else {
        const link = document.createElement("a");
        link.href = conflictHref(c);
        link.textContent = String(c.title);
        title = link;
      }
      const when = document.createElement("span");
      when.className = "muted";
      when.textContent = span(String(c.start), String(c.end));
      const who = document.createElement("span");
      who.className = "muted";
      const name = members[String(c.userId)] ?? strings.unknown ?? "";
      who.textContent = (strings.forName ?? "{name}").replace("{name}", name);
      item.append(kind, " ", title, " ", when, " ", who);
      list.append(item);
    }
    if (conflicts.length > 0) {
      setStatus("found", (strings.count ?? "{count}").replace("{count}", String(conflicts.length)));
    } else {
      setStatus("clear", strings.none ?? "");
    }
  }

  function setStatus(/** @type {string} */ state, /** @type {string} */ text) {
    panel.dataset.state = state;
    status.textContent = text;
    status.className = state === "found" || state === "failed"
      ? "notice conflict-status"
      : "muted conflict-status";
  }

  async function check() {
    const q = query();
    const mine = ++asked;
    pending?.abort();
    pending = null;
    if (q === null) {
      shown = "";
      render(null);
      return;
    }
    if (q === shown && panel.dataset.state !== "failed") return;
    const controller = new AbortController();
    pending = controller;
    panel.dataset.state = "checking";
    status.textContent = strings.checking ?? "";
    try {
      const res = await fetch(
        `/api/projects/${encodeURIComponent(projectId)}/meetings/check?${q}`,
        {
          headers: { accept: "application/json" },
          signal: controller.signal,
        },
      );
      if (!res.ok) throw new Error(String(res.status));
      const body = await res.json();
      if (mine !== asked) return;
      shown = q;
      render(Array.isArray(body?.conflicts) ? body.conflicts : []);
    } catch (error) {
      if (mine !== asked || (error instanceof DOMException && error.name === "AbortError")) return;
      shown = "";
      list.replaceChildren();
      setStatus("failed", strings.failed ?? "");
    } finally {
      if (pending === controller) pending = null;
    }
  }

  function soon() {
    clearTimeout(timer);
    timer = setTimeout(() => void check(), 250);
  }

  form.addEventListener("input", (event) => {
    const field = event.target;
    if (
      field instanceof HTMLInputElement &&
      (field.name === "startAt" || field.name === "endAt" || field.name === "inviteeIds")
    ) soon();
  });
  form.addEventListener("change", (event) => {
    const field = event.target;
    if (
      field instanceof HTMLInputElement &&
      (field.name === "startAt" || field.name === "endAt" || field.name === "inviteeIds")
    ) soon();
  });

  // A form shown again with its values (after a refusal, or to edit a meeting): check now.
  if (query() !== null) void check();
}

/** Parses a JSON data attribute, or gives `fallback`. */
function readJson(/** @type {string | undefined} */ text, /** @type {any} */ fallback) {
  try {
    return text ? JSON.parse(text) : fallback;
  } catch {
    return fallback;
  }
}
