// Keeps the header's unread badge live from the caller's own event stream (/api/me/stream).
// The page works without it: the badge is right at load and after every navigation.

const badge = document.querySelector("[data-unread]");

/** Shows `count` in the badge (hidden at 0) and tells other scripts it changed. */
function show(count) {
  if (!(badge instanceof HTMLElement)) return;
  badge.dataset.unread = String(count);
  badge.textContent = String(count);
  badge.hidden = count === 0;
  document.dispatchEvent(new CustomEvent("unread-changed", { detail: { count } }));
}

if (badge && "EventSource" in globalThis) {
  // EventSource reconnects by itself and sends Last-Event-ID, so nothing is missed.
  const source = new EventSource("/api/me/stream");
  // Tests and styles can tell whether the badge is live.
  source.addEventListener("open", () => document.body.dataset.userStream = "open");
  source.addEventListener("error", () => document.body.dataset.userStream = "closed");
  source.addEventListener("notification.created", (event) => {
    const notification = JSON.parse(event.data);
    if (notification.read) return;
    show(Number(badge.dataset.unread ?? "0") + 1);
  });
  source.addEventListener("notification.read", (event) => {
    show(JSON.parse(event.data).unreadCount);
  });
  // Leaving the page closes the stream at once rather than at the next heartbeat.
  globalThis.addEventListener("pagehide", () => source.close());
}
