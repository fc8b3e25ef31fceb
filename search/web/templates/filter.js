(function () {
  "use strict";
  var box = document.getElementById("filter");
  if (!box) { return; }
  box.closest(".filter").hidden = false;
  var items = Array.prototype.slice.call(document.querySelectorAll("[data-filter]"));
  var texts = items.map(function (item) { return item.textContent.toLowerCase(); });
  var groups = Array.prototype.slice.call(document.querySelectorAll("[data-filter-group]"));
  var links = Array.prototype.slice.call(document.querySelectorAll("a[data-for]"));
  var count = document.getElementById("filter-count");
  var timer = null;
  function apply() {
    var words = box.value.toLowerCase().split(/\s+/).filter(function (w) { return w.length > 0; });
    var shown = 0;
    for (var i = 0; i < items.length; i++) {
      var hit = true;
      for (var j = 0; j < words.length && hit; j++) { hit = texts[i].indexOf(words[j]) >= 0; }
      items[i].hidden = !hit;
      if (hit) { shown++; }
    }
    groups.forEach(function (group) { group.hidden = !group.querySelector("[data-filter]:not([hidden])"); });
    links.forEach(function (link) {
      var target = document.getElementById(link.getAttribute("data-for"));
      var group = target && target.closest("[data-filter-group]");
      link.hidden = Boolean(group && group.hidden);
    });
    count.textContent = words.length ? shown + " of " + items.length + " shown" : "";
  }
  box.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(apply, 150); });
  if (box.value) { apply(); }
}());
