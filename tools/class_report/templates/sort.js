// Sorting of every table.sortable: a click on a column's header sorts the
// body by that column, a second click reverses it. A cell sorts by its
// data-sort attribute when it has one (numbers), else by its text; empty
// cells go last either way. No library, no network.
(function () {
  "use strict";

  function keyOf(cell) {
    var text = cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent;
    text = text.trim();
    if (text === "") return { empty: true };
    var value = Number(text);
    if (cell.hasAttribute("data-sort") && !isNaN(value)) return { number: value };
    return { text: text.toLowerCase() };
  }

  function compare(a, b) {
    if (a.empty || b.empty) return a.empty && b.empty ? 0 : null;  // handled by the caller
    if (a.number !== undefined && b.number !== undefined) return a.number - b.number;
    if (a.number !== undefined) return -1;
    if (b.number !== undefined) return 1;
    return a.text < b.text ? -1 : a.text > b.text ? 1 : 0;
  }

  function sortBy(table, column, descending) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows).map(function (row, index) {
      return { row: row, index: index, key: keyOf(row.cells[column]) };
    });
    rows.sort(function (x, y) {
      if (x.key.empty || y.key.empty) {
        if (x.key.empty && y.key.empty) return x.index - y.index;
        return x.key.empty ? 1 : -1;
      }
      var order = compare(x.key, y.key);
      if (descending) order = -order;
      return order || x.index - y.index;
    });
    rows.forEach(function (entry) { body.appendChild(entry.row); });
  }

  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (head, column) {
      head.tabIndex = 0;
      head.title = "sort by this column";
      function activate() {
        var state = head.getAttribute("aria-sort");
        var descending = state ? state === "ascending" : head.getAttribute("data-first") === "descending";
        Array.prototype.forEach.call(heads, function (other) { other.removeAttribute("aria-sort"); });
        head.setAttribute("aria-sort", descending ? "descending" : "ascending");
        sortBy(table, column, descending);
      }
      head.addEventListener("click", activate);
      head.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); activate(); }
      });
    });
  });
  document.documentElement.setAttribute("data-sorting", "ready");
})();
