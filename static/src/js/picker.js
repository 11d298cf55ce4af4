// Member picker: suggestions under a member name field (projects/partials/subject_suggestions.html).
//   <button data-pick-row="members-0-" data-pick-kind="group" data-pick-name="ml-team">
// fills the fields named <row>kind and <row>name of the same form, then closes the list.
// A click elsewhere or Escape closes every open list.
const LISTS = ".subject-suggestions";

function closeAll(except) {
  for (const box of document.querySelectorAll(LISTS)) {
    if (box !== except) box.replaceChildren();
  }
}

export function setupPicker() {
  document.addEventListener("click", (evt) => {
    const pick = evt.target.closest("[data-pick-row]");
    if (!pick) {
      if (evt.target.closest("[aria-autocomplete]")) return; // the field the list belongs to
      closeAll(evt.target.closest(LISTS));
      return;
    }
    evt.preventDefault();
    const form = pick.closest("form");
    const row = pick.dataset.pickRow;
    const name = form?.querySelector(`[name="${row}name"]`);
    const kind = form?.querySelector(`[name="${row}kind"]`);
    if (kind) kind.value = pick.dataset.pickKind;
    if (name) {
      name.value = pick.dataset.pickName;
      name.focus();
    }
    closeAll();
  });
  document.addEventListener("keydown", (evt) => {
    if (evt.key === "Escape") closeAll();
  });
}
