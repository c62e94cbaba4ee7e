// Small progressive enhancements; every form works without this file.

// Ask before destructive actions marked with data-confirm.
document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement)) return;
  const message = form.dataset.confirm;
  if (message && !globalThis.confirm(message)) event.preventDefault();
});

// Apply a theme or language choice at once, before the round trip completes.
document.addEventListener("change", (event) => {
  const field = event.target;
  if (!(field instanceof HTMLSelectElement) || !field.form?.hasAttribute("data-autosubmit")) {
    return;
  }
  if (field.name === "theme") {
    document.documentElement.dataset.theme = field.value;
    const scheme = document.querySelector('meta[name="color-scheme"]');
    scheme?.setAttribute("content", field.value === "system" ? "light dark" : field.value);
  }
  field.form.requestSubmit();
});

// A project's tabs scroll sideways on a phone: start with the current tab in view (centred),
// moving only the tab bar, never the page.
const tabs = document.querySelector("nav.tabs");
const currentTab = tabs?.querySelector('[aria-current="page"]');
if (tabs instanceof HTMLElement && currentTab instanceof HTMLElement) {
  if (tabs.scrollWidth > tabs.clientWidth) {
    const bar = tabs.getBoundingClientRect();
    const tab = currentTab.getBoundingClientRect();
    tabs.scrollLeft += tab.left - bar.left - (bar.width - tab.width) / 2;
  }
}

// Ctrl+Enter (⌘+Enter) in a text area submits its form, as in most chat and forum tools.
document.addEventListener("keydown", (event) => {
  const field = event.target;
  if (!(field instanceof HTMLTextAreaElement) || event.key !== "Enter") return;
  if (!(event.ctrlKey || event.metaKey) || !field.form) return;
  event.preventDefault();
  field.form.requestSubmit();
});
