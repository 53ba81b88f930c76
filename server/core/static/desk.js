// The desk's "all" checkbox ticks or clears every mailable notice of its form. A file,
// not an onclick attribute: the pages' CSP allows no inline script.
document.addEventListener("change", (event) => {
  const box = event.target;
  if (!(box instanceof HTMLInputElement) || !box.dataset.checkAll) return;
  for (const b of box.form.querySelectorAll(`input[name="${box.dataset.checkAll}"]:enabled`)) b.checked = box.checked;
});
