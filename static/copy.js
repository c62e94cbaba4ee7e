// The Copy buttons next to a secret or a feed URL (see `kit/copy.tsx`). Without this file
// the buttons stay hidden and the text, shown in full, is selected and copied by hand.
// - The Clipboard API first; where it is missing or refused (an insecure origin, a denied
//   permission), the text is selected and the older copy command tried.
// - When both fail the text stays selected and the button says to copy it by hand.
// - The outcome is also in `data-copy-state` (`copied` or `failed`).

for (const button of document.querySelectorAll("button[data-copy]")) {
  const target = document.getElementById(button.getAttribute("data-copy") ?? "");
  if (button instanceof HTMLButtonElement && target) enhance(button, target);
}

/**
 * @param {HTMLButtonElement} button
 * @param {HTMLElement} target
 */
function enhance(button, target) {
  const label = button.textContent ?? "";
  let timer = 0;
  button.hidden = false;
  button.addEventListener("click", async () => {
    const text = target.textContent ?? "";
    let copied = false;
    try {
      await navigator.clipboard.writeText(text);
      copied = true;
    } catch {
      copied = selectAndCopy(target);
    }
    if (!copied) select(target);
    button.dataset.copyState = copied ? "copied" : "failed";
    button.textContent = (copied ? button.dataset.copied : button.dataset.failed) ?? label;
    clearTimeout(timer);
    timer = setTimeout(() => {
      button.textContent = label;
    }, copied ? 2000 : 6000);
  });
}

/** @param {HTMLElement} target */
function select(target) {
  const range = document.createRange();
  range.selectNodeContents(target);
  const selection = getSelection();
  selection?.removeAllRanges();
  selection?.addRange(range);
}

/**
 * The fallback: selects the text and runs the copy command (deprecated, yet the only way
 * where the Clipboard API is not available).
 * @param {HTMLElement} target
 */
function selectAndCopy(target) {
  select(target);
  try {
    return document.execCommand("copy");
  } catch {
    return false;
  }
}
