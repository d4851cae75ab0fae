// web2text show: flip labels by click or key, rebuild the main text, save the labels as JSON.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("w2t-data").textContent);
  var blocks = data.blocks;
  var original = blocks.map(function (block) { return block.label; });
  var spans = {};
  document.querySelectorAll("#w2t-page span[data-w2t]").forEach(function (span) {
    spans[Number(span.getAttribute("data-w2t"))] = span;
  });
  var indices = Object.keys(spans).map(Number).sort(function (a, b) { return a - b; });
  var selected = -1;
  var hovered = -1;
  var NO_SPACE_BEFORE = ".,;:!?)]}%\u201d\u2019\u00bb";

  function info(index) {
    var block = blocks[index];
    document.getElementById("w2t-info").textContent =
      block.label + " \u00b7 p(content) " + block.p.toFixed(3) + " \u00b7 " + block.text.length +
      " characters \u00b7 " + (block.xpath || "?") + (block.label !== original[index] ? " \u00b7 changed" : "");
  }

  function changedIndices() {
    var changed = [];
    for (var i = 0; i < blocks.length; i++) { if (blocks[i].label !== original[i]) { changed.push(i); } }
    return changed;
  }

  // The same join as extraction.join_main_text: inline neighbours with a space, others on a new line.
  function mainText() {
    var parts = [];
    var previous = -2;
    for (var i = 0; i < blocks.length; i++) {
      if (blocks[i].label !== "content") { continue; }
      var text = blocks[i].text;
      if (parts.length) {
        if (i === previous + 1 && !blocks[i].br) {
          if (NO_SPACE_BEFORE.indexOf(text.charAt(0)) < 0) { parts.push(" "); }
        } else {
          parts.push("\n");
        }
      }
      parts.push(text);
      previous = i;
    }
    return parts.join("");
  }

  function refresh() {
    var changed = changedIndices();
    document.getElementById("w2t-changed").textContent = String(changed.length);
    document.getElementById("w2t-main-text").textContent = changed.length ? mainText() : data.main_text;
    var content = blocks.filter(function (block) { return block.label === "content"; }).length;
    var counter = document.getElementById("w2t-blocks");
    if (counter) { counter.textContent = content + " content of " + blocks.length; }
  }

  function flip(index) {
    var block = blocks[index];
    block.label = block.label === "content" ? "boilerplate" : "content";
    var span = spans[index];
    if (span) {
      span.classList.toggle("w2t-content", block.label === "content");
      span.classList.toggle("w2t-boilerplate", block.label === "boilerplate");
      span.classList.toggle("w2t-changed", block.label !== original[index]);
    }
    info(index);
    refresh();
  }

  function select(index) {
    if (selected >= 0 && spans[selected]) { spans[selected].classList.remove("w2t-selected"); }
    selected = index;
    if (index >= 0 && spans[index]) {
      spans[index].classList.add("w2t-selected");
      spans[index].scrollIntoView({block: "nearest"});
      info(index);
    }
  }

  function labelsDocument() {
    return {
      format: data.format, url: data.url, sha256: data.sha256, model: data.model, threshold: data.threshold,
      changed: changedIndices().length,
      blocks: blocks.map(function (block, i) {
        return {xpath: block.xpath, label: block.label, changed: block.label !== original[i]};
      })
    };
  }

  function save() {
    var text = JSON.stringify(labelsDocument(), null, 1);
    document.getElementById("w2t-saved").textContent = text;
    var link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([text], {type: "application/json"}));
    link.download = data.labels_file;
    document.body.appendChild(link);
    link.click();
    link.remove();
  }

  function blockOf(target) {
    var span = target && target.closest ? target.closest("#w2t-page span[data-w2t]") : null;
    return span ? Number(span.getAttribute("data-w2t")) : -1;
  }

  var page = document.getElementById("w2t-page");
  page.addEventListener("click", function (event) {
    event.preventDefault();
    var index = blockOf(event.target);
    if (index >= 0) { select(index); flip(index); }
  }, true);
  page.addEventListener("mouseover", function (event) {
    var index = blockOf(event.target);
    if (index >= 0) { hovered = index; info(index); }
  });
  document.getElementById("w2t-save").addEventListener("click", save);
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    var key = event.key.toLowerCase();
    var position = indices.indexOf(selected);
    if (key === "f" || key === " ") {
      var target = selected >= 0 ? selected : hovered;
      if (target >= 0) { flip(target); event.preventDefault(); }
    } else if (key === "j" && indices.length) {
      select(indices[Math.min(position + 1, indices.length - 1)]);
    } else if (key === "k" && indices.length) {
      select(indices[Math.max(position - 1, 0)]);
    } else if (key === "s") {
      save();
    }
  });
  refresh();
}());
