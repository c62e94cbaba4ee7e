// Proposes the browser's time zone once, to a person who never chose one: the page includes
// this file only then. PATCH /api/users/me stores it (a same-origin request, which the CSRF
// check lets through); from then on the choice is the person's, changed on the settings page.
// A zone the server does not know is left alone: the person stays on UTC until they choose.

const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
if (zone) void propose(zone);

/** @param {string} zone */
async function propose(zone) {
  const res = await fetch("/api/users/me", {
    method: "PATCH",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ timeZone: zone }),
  }).catch(() => null);
  if (!res?.ok) return;
  const { user } = await res.json();
  // The settings form shows the zone just chosen, so saving it later keeps it.
  const select = document.querySelector("select[name=timeZone]");
  if (select instanceof HTMLSelectElement && typeof user?.timeZone === "string") {
    select.value = user.timeZone;
  }
}
