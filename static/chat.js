// The chat page's enhancements; the page works without this file.
// - Live: the project stream (EventSource) applies chat.message.created/updated/deleted in
//   place. Messages are inserted from server-rendered fragments (the page's own escaping
//   and Markdown), placed by id, so each appears once and in order. The browser reconnects
//   by itself and sends Last-Event-ID; a stream opened anew passes the last id it saw.
// - Enter sends (never while an IME is composing), Shift+Enter starts a new line.
// - Typing @ offers the project's members; choosing one inserts their email.
// - Edit and delete forms call the JSON API; scrolling to the top loads older messages.

const root = document.querySelector("[data-chat]");
if (root instanceof HTMLElement) enhance(root);

/** @param {HTMLElement} root */
function enhance(root) {
  const projectId = root.dataset.project;
  const page = `/projects/${projectId}/chat`;
  const api = `/api/projects/${projectId}/chat`;
  const log = /** @type {HTMLOListElement} */ (root.querySelector("[data-chat-log]"));
  const more = /** @type {HTMLElement | null} */ (root.querySelector("[data-chat-more]"));
  const olderLink = root.querySelector("[data-chat-older]");
  const status = document.querySelector("[data-chat-status]");
  const strings = readJson(root.dataset.strings, {});
  const members = readJson(root.dataset.members, []);
  const isLive = root.dataset.live === "true";
  /** Ids deleted while this page is open: a late fragment must not bring them back. */
  const deleted = new Set();
  /** @type {EventSource | null} */
  let source = null;
  /** @type {string | null} */
  let lastEventId = null;
  let retry = 0;
  let stopped = false;
  let loadingOlder = false;

  // ---- the message list -------------------------------------------------------------

  const messages =
    () => /** @type {HTMLLIElement[]} */ ([...log.children].filter((el) =>
      el.matches("[data-message]")
    ));
  const idOf = (/** @type {HTMLElement} */ el) => Number(el.dataset.message);
  const find = (/** @type {number} */ id) => messages().find((el) => idOf(el) === id) ?? null;
  const nearBottom = () => log.scrollHeight - log.scrollTop - log.clientHeight < 48;
  const toBottom = () => {
    log.scrollTop = log.scrollHeight;
  };

  /** The list items of an HTML fragment from the server. */
  function parseItems(/** @type {string} */ html) {
    const template = document.createElement("template");
    template.innerHTML = html;
    return /** @type {HTMLLIElement[]} */ ([...template.content.children].filter((el) =>
      el.matches("li[data-message]")
    ));
  }

  /** Puts a message in its place by id, replacing an older copy of it. */
  function place(/** @type {HTMLLIElement} */ item) {
    const id = idOf(item);
    if (deleted.has(id)) return;
    const current = find(id);
    if (current) {
      if ((item.dataset.updated ?? "") < (current.dataset.updated ?? "")) return;
      const editing = current.querySelector("details.chat-edit[open]");
      if (editing) {
        // Keep an open edit form; refresh what is shown around it.
        for (const part of [".chat-meta", ".chat-text", ".chat-files"]) {
          const fresh = item.querySelector(part);
          const old = current.querySelector(part);
          if (fresh && old) old.replaceWith(fresh);
        }
        current.dataset.updated = item.dataset.updated ?? "";
      } else {
        current.replaceWith(item);
      }
      return;
    }
    const after = messages().find((el) => idOf(el) > id) ?? null;
    log.insertBefore(item, after);
    updateEmpty();
  }

  function remove(/** @type {number} */ id) {
    deleted.add(id);
    find(id)?.remove();
    updateEmpty();
  }

  function updateEmpty() {
    const empty = root.querySelector("[data-chat-empty]");
    if (empty instanceof HTMLElement) empty.hidden = messages().length > 0;
  }

  /** Fetches one message's fragment and places it (or removes it when it is gone). */
  async function load(/** @type {number} */ id, options = { scroll: false }) {
    const stick = options.scroll || nearBottom();
    const res = await fetch(`${page}/fragment/${id}`, { headers: { accept: "text/html" } });
    if (res.status === 404) return remove(id);
    if (!res.ok) return;
    for (const item of parseItems(await res.text())) place(item);
    if (stick) toBottom();
  }

  /** Brings the latest page up to date after a gap (a stream opened without an event id). */
  async function reconcile() {
    const stick = nearBottom();
    const res = await fetch(`${page}/fragment`, { headers: { accept: "text/html" } });
    if (!res.ok) return;
    const items = parseItems(await res.text());
    const ids = new Set(items.map(idOf));
    const oldest = items.length > 0 ? Math.min(...ids) : 0;
    const complete = res.headers.get("x-has-more") !== "true";
    for (const el of messages()) {
      const id = idOf(el);
      if (!ids.has(id) && (complete || id >= oldest)) remove(id);
    }
    for (const item of items) place(item);
    if (stick) toBottom();
  }

  async function loadOlder() {
    const first = messages()[0];
    if (loadingOlder || log.dataset.hasMore !== "true" || !first) return;
    loadingOlder = true;
    const label = olderLink?.textContent ?? "";
    if (olderLink) olderLink.textContent = strings.loading ?? label;
    try {
      const res = await fetch(`${page}/fragment?before=${idOf(first)}`, {
        headers: { accept: "text/html" },
      });
      if (!res.ok) throw new Error(String(res.status));
      const items = parseItems(await res.text());
      const height = log.scrollHeight;
      const top = log.scrollTop;
      for (const item of items) place(item);
      log.scrollTop = top + (log.scrollHeight - height);
      log.dataset.hasMore = res.headers.get("x-has-more") === "true" ? "true" : "false";
      if (more) more.hidden = log.dataset.hasMore !== "true";
    } catch {
      showError(strings.loadFailed);
    } finally {
      if (olderLink) olderLink.textContent = label;
      loadingOlder = false;
    }
  }

  log.addEventListener("scroll", () => {
    if (log.scrollTop < 40) void loadOlder();
  });
  olderLink?.addEventListener("click", (event) => {
    event.preventDefault();
    void loadOlder();
  });

  // ---- the live stream --------------------------------------------------------------

  function setStatus(/** @type {boolean} */ online) {
    document.body.dataset.stream = online ? "open" : "closed";
    if (status) {
      status.textContent = online ? strings.live ?? "" : strings.offline ?? "";
      status.classList.toggle("offline", !online);
    }
  }

  /** @param {Event} event */
  function onEvent(event) {
    const message = /** @type {MessageEvent} */ (event);
    if (message.lastEventId) lastEventId = message.lastEventId;
    let data;
    try {
      data = JSON.parse(message.data);
    } catch {
      return;
    }
    const id = Number(data?.id);
    if (!Number.isSafeInteger(id)) return;
    if (event.type === "chat.message.deleted") return remove(id);
    if (event.type === "chat.message.created" && find(id)) return;
    if (event.type === "chat.message.updated" && !find(id)) return;
    void load(id);
  }

  function connect() {
    if (source) source.close();
    const query = lastEventId === null ? "" : `?lastEventId=${encodeURIComponent(lastEventId)}`;
    const stream = new EventSource(`${api}/stream${query}`);
    source = stream;
    stream.addEventListener("open", () => {
      retry = 0;
      setStatus(true);
      // Without an event id nothing is replayed: catch up from the latest page instead.
      if (lastEventId === null) void reconcile();
    });
    stream.addEventListener("error", () => {
      if (source !== stream) return;
      setStatus(false);
      // The browser retries by itself unless the server refused the stream outright.
      if (stream.readyState === EventSource.CLOSED) {
        source = null;
        const delay = Math.min(30_000, 2_000 * 2 ** retry++);
        setTimeout(() => {
          if (!source && !stopped) connect();
        }, delay);
      }
    });
    for (const name of ["chat.message.created", "chat.message.updated", "chat.message.deleted"]) {
      stream.addEventListener(name, onEvent);
    }
  }

  function disconnect() {
    stopped = true;
    source?.close();
    source = null;
    setStatus(false);
  }
  function reconnect() {
    stopped = false;
    connect();
  }

  if (isLive) {
    connect();
    // Leaving the page (or entering the back/forward cache) ends the stream; coming back
    // resumes it from the last event seen.
    addEventListener("pagehide", disconnect);
    addEventListener("pageshow", (event) => {
      if (event.persisted) reconnect();
    });
    // For tests and debugging: cut and resume the stream.
    Object.defineProperty(globalThis, "collabChat", {
      value: Object.freeze({ disconnect, reconnect, lastEventId: () => lastEventId }),
      configurable: true,
    });
  }
  toBottom();

  // ---- sending ----------------------------------------------------------------------

  const form = root.querySelector("form[data-chat-send]");
  const input = root.querySelector("[data-chat-input]");
  const list = root.querySelector("[data-chat-mentions]");
  if (
    form instanceof HTMLFormElement && input instanceof HTMLTextAreaElement &&
    list instanceof HTMLUListElement
  ) {
    const file = form.querySelector("input[type=file]");
    const picker = form.querySelector("select[name=fileId]");
    // A message with a file (uploaded or chosen from the project's) goes the form's way.
    const hasFile = () =>
      (file instanceof HTMLInputElement && file.files !== null && file.files.length > 0) ||
      (picker instanceof HTMLSelectElement && picker.value !== "");
    const button = form.querySelector("button[type=submit]");
    let sending = false;

    const send = async () => {
      const text = input.value;
      // A blank message is refused at once, even while an earlier one is still on its way.
      if (!text.trim()) {
        showError(strings.blank);
        return;
      }
      if (sending) return;
      // A message with a file goes the form's way (multipart), reloading the page; so does
      // one sent from an older page, which then shows the latest messages.
      if (!isLive || hasFile()) {
        HTMLFormElement.prototype.submit.call(form);
        return;
      }
      sending = true;
      if (button instanceof HTMLButtonElement) button.disabled = true;
      try {
        const res = await fetch(`${api}/messages`, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json" },
          body: JSON.stringify({ text }),
        });
        if (res.status !== 201) throw new Error(String(res.status));
        const body = await res.json();
        // Keep what was typed meanwhile.
        if (input.value === text) input.value = "";
        clearError();
        await load(Number(body.message.id), { scroll: true });
      } catch {
        showError(strings.sendFailed);
      } finally {
        sending = false;
        if (button instanceof HTMLButtonElement) button.disabled = false;
        input.focus();
      }
    };

    form.addEventListener("submit", (event) => {
      if (!isLive || hasFile()) return;
      event.preventDefault();
      void send();
    });

    // ---- @-mention completion -------------------------------------------------------
    // A text area may take no combobox role: it stays a textbox with aria-autocomplete="list"
    // and aria-controls naming the listbox; aria-activedescendant points at the chosen option
    // while the list is open (focus stays in the box, the arrows move the choice).
    /** @type {{ start: number; end: number; options: { email: string; name: string }[]; active: number } | null} */
    let mention = null;

    const mentionAtCaret = () => {
      const end = input.selectionStart ?? 0;
      if (end !== input.selectionEnd) return null;
      const before = input.value.slice(0, end);
      const match = /(?:^|[^A-Za-z0-9._%+\-@＠])[@＠]([^\s@＠]{0,64})$/.exec(before);
      if (!match) return null;
      const query = (match[1] ?? "").toLowerCase();
      return { start: end - query.length - 1, end, query };
    };

    const closeMentions = () => {
      mention = null;
      list.hidden = true;
      list.replaceChildren();
      input.removeAttribute("aria-activedescendant");
    };

    const renderMentions = () => {
      if (!mention) return closeMentions();
      list.replaceChildren(
        ...mention.options.map((member, index) => {
          const option = document.createElement("li");
          option.id = `chat-mention-${index}`;
          option.setAttribute("role", "option");
          option.setAttribute("aria-selected", index === mention?.active ? "true" : "false");
          option.dataset.email = member.email;
          const name = document.createElement("span");
          name.textContent = member.name;
          const email = document.createElement("span");
          email.className = "email";
          email.textContent = member.email;
          option.append(name, email);
          return option;
        }),
      );
      list.hidden = false;
      input.setAttribute("aria-activedescendant", `chat-mention-${mention.active}`);
    };

    const updateMentions = () => {
      const at = mentionAtCaret();
      if (!at) return closeMentions();
      const options = members.filter((m) => `${m.email} ${m.name}`.toLowerCase().includes(at.query))
        .slice(0, 8);
      if (options.length === 0) return closeMentions();
      const active = mention ? Math.min(mention.active, options.length - 1) : 0;
      mention = { start: at.start, end: at.end, options, active };
      renderMentions();
    };

    const choose = (/** @type {number} */ index) => {
      const member = mention?.options[index];
      if (!mention || !member) return;
      const insert = `@${member.email} `;
      input.setRangeText(insert, mention.start, mention.end, "end");
      closeMentions();
      input.focus();
    };

    input.addEventListener("input", updateMentions);
    input.addEventListener("click", updateMentions);
    input.addEventListener("blur", () => setTimeout(closeMentions, 150));
    list.addEventListener("mousedown", (event) => {
      // Keep the focus in the text area while choosing with the mouse.
      event.preventDefault();
      const option = event.target instanceof Element ? event.target.closest("[role=option]") : null;
      if (option && mention) {
        choose(mention.options.findIndex((m) => m.email === option.getAttribute("data-email")));
      }
    });

    input.addEventListener("keydown", (event) => {
      // An IME is composing: Enter confirms the conversion, it must not send or choose.
      if (event.isComposing || event.keyCode === 229) return;
      if (mention) {
        const count = mention.options.length;
        if (event.key === "ArrowDown" || event.key === "ArrowUp") {
          event.preventDefault();
          mention.active = (mention.active + (event.key === "ArrowDown" ? 1 : count - 1)) % count;
          return renderMentions();
        }
        if (event.key === "Enter" || event.key === "Tab") {
          event.preventDefault();
          return choose(mention.active);
        }
        if (event.key === "Escape") {
          event.preventDefault();
          return closeMentions();
        }
      }
      if (event.key !== "Enter" || event.shiftKey) return;
      event.preventDefault();
      void send();
    });
  }

  // ---- edit and delete --------------------------------------------------------------

  document.addEventListener("submit", async (event) => {
    const target = event.target;
    if (!(target instanceof HTMLFormElement) || event.defaultPrevented) return;
    const editId = target.dataset.chatEdit;
    const deleteId = target.dataset.chatDelete;
    if (!editId && !deleteId) return;
    event.preventDefault();
    const id = Number(editId ?? deleteId);
    try {
      if (editId) {
        const text = new FormData(target).get("text");
        const res = await fetch(`${api}/messages/${id}`, {
          method: "PATCH",
          headers: { "content-type": "application/json", accept: "application/json" },
          body: JSON.stringify({ text: typeof text === "string" ? text : "" }),
        });
        if (!res.ok) throw new Error(String(res.status));
        const details = target.closest("details");
        if (details) details.open = false;
        await load(id);
      } else {
        const res = await fetch(`${api}/messages/${id}`, { method: "DELETE" });
        if (res.status !== 204 && res.status !== 404) throw new Error(String(res.status));
        remove(id);
      }
    } catch {
      // Let the server say what went wrong, on its own page.
      HTMLFormElement.prototype.submit.call(target);
    }
  });

  // ---- messages -----------------------------------------------------------------------

  function showError(/** @type {string | undefined} */ text) {
    let alert = root.querySelector("[data-chat-error]");
    if (!alert) {
      alert = document.createElement("div");
      alert.className = "alert";
      alert.setAttribute("role", "alert");
      alert.setAttribute("data-chat-error", "");
      root.prepend(alert);
    }
    alert.textContent = text ?? "";
  }

  function clearError() {
    root.querySelector("[data-chat-error]")?.remove();
  }
}

/** Parses a JSON data attribute, or gives `fallback`. */
function readJson(/** @type {string | undefined} */ text, /** @type {any} */ fallback) {
  try {
    return text ? JSON.parse(text) : fallback;
  } catch {
    return fallback;
  }
}
