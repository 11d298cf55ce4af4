// The search box in every page's header: "/" focuses it (unless the user is typing somewhere), Escape clears
// its suggestions, a click elsewhere hides them. The suggestions themselves come from htmx (hx-get on input).
export function setupSearch() {
  document.addEventListener("keydown", (evt) => {
    const box = document.querySelector("[data-search-input]");
    if (!box) return;
    const typing = evt.target instanceof HTMLElement &&
      (evt.target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(evt.target.tagName) ||
       evt.target.closest(".xterm"));
    if (evt.key === "/" && !typing && !evt.ctrlKey && !evt.metaKey && !evt.altKey) {
      evt.preventDefault();
      box.focus();
      box.select();
    } else if (evt.key === "Escape" && evt.target === box) {
      clearSuggestions();
      box.blur();
    }
  });
  document.addEventListener("click", (evt) => {
    if (!(evt.target instanceof Element) || !evt.target.closest(".search-box")) clearSuggestions();
  });
}

function clearSuggestions() {
  const list = document.getElementById("search-suggestions");
  if (list) list.replaceChildren();
}
