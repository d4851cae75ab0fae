// web2text show: flip labels by click or key, rebuild the main text, save the labels as JSON.
// The bar, the panel and the outlines live in the shadow root of #w2t-view, shown in the top layer: the page's
// style sheets cannot reach them.  Outlines are boxes placed over each block's line boxes, and a click is mapped
// to the block under it by position, so a block stays reachable under whatever the page lays over it.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("w2t-data").textContent);
  var blocks = data.blocks;
  var original = blocks.map(function (block) { return block.label; });
  var host = document.getElementById("w2t-view");
  var root = host.shadowRoot;
  if (!root) {  // a browser without declarative shadow roots: build it from the template
    var template = host.querySelector("template");
    root = host.attachShadow({mode: "open"});
    root.appendChild(template.content.cloneNode(true));
    template.remove();
  }
  function $(id) { return root.getElementById(id); }
  // A child of <html>, not of <body>: nothing the page styles is its ancestor but the root, held by its style.
  document.documentElement.appendChild(host);
  if (host.showPopover) { host.showPopover(); }

  var spans = {};
  document.querySelectorAll("#w2t-page span[data-w2t]").forEach(function (span) {
    spans[Number(span.getAttribute("data-w2t"))] = span;
  });
  var indices = Object.keys(spans).map(Number).sort(function (a, b) { return a - b; });
  var selected = -1;
  var hovered = -1;
  var NO_SPACE_BEFORE = ".,;:!?)]}%\u201d\u2019\u00bb";
  var layer = $("w2t-boxes");
  var boxes = {};   // block index -> its boxes, one per line box
  var places = {};  // block index -> [left, top, right, bottom] per line box, in page coordinates

  function info(index) {
    var block = blocks[index];
    $("w2t-info").textContent =
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
    $("w2t-changed").textContent = String(changed.length);
    $("w2t-main-text").textContent = changed.length ? mainText() : data.main_text;
    var content = blocks.filter(function (block) { return block.label === "content"; }).length;
    var counter = $("w2t-blocks");
    if (counter) { counter.textContent = content + " content of " + blocks.length; }
  }

  function boxClass(index) {
    var label = blocks[index].label;
    return "w2t-box w2t-" + label + (label !== original[index] ? " w2t-changed" : "") +
      (index === selected ? " w2t-selected" : "");
  }

  function restyle(index) {
    (boxes[index] || []).forEach(function (box) { box.className = boxClass(index); });
  }

  // Place every block's boxes over its line boxes (after any layout change; a scroll of the page only moves them).
  function draw() {
    var x = window.scrollX, y = window.scrollY;
    indices.forEach(function (index) {
      var rects = spans[index].getClientRects();
      var own = boxes[index] || (boxes[index] = []);
      var place = places[index] = [];
      for (var i = 0; i < rects.length; i++) {
        var rect = rects[i];
        if (!rect.width && !rect.height) { continue; }
        var box = own[place.length];
        if (!box) {
          box = own[place.length] = document.createElement("div");
          box.setAttribute("data-w2t", String(index));
          box.style.setProperty("--w2t-p", String(blocks[index].p));
          box.className = boxClass(index);
          layer.appendChild(box);
        }
        place.push([rect.left + x, rect.top + y, rect.right + x, rect.bottom + y]);
        box.style.left = (rect.left + x) + "px";
        box.style.top = (rect.top + y) + "px";
        box.style.width = rect.width + "px";
        box.style.height = rect.height + "px";
        box.hidden = false;
      }
      for (var j = place.length; j < own.length; j++) { own[j].hidden = true; }
    });
    scrolled();
  }

  function scrolled() {
    layer.style.transform = "translate(" + (-window.scrollX) + "px, " + (-window.scrollY) + "px)";
  }

  var pending = false;
  function redraw() {
    if (!pending) {
      pending = true;
      requestAnimationFrame(function () { pending = false; draw(); });
    }
  }

  // The block whose line box holds the point (viewport coordinates), the smallest where boxes overlap.
  function blockAt(clientX, clientY) {
    var x = clientX + window.scrollX, y = clientY + window.scrollY;
    var found = -1, area = Infinity;
    indices.forEach(function (index) {
      (places[index] || []).forEach(function (p) {
        var size = (p[2] - p[0]) * (p[3] - p[1]);
        if (x >= p[0] && x <= p[2] && y >= p[1] && y <= p[3] && size < area) { found = index; area = size; }
      });
    });
    return found;
  }

  function blockOf(event) {
    var target = event.target;
    var span = target && target.closest ? target.closest("#w2t-page span[data-w2t]") : null;
    return span ? Number(span.getAttribute("data-w2t")) : blockAt(event.clientX, event.clientY);
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
    restyle(index);
    info(index);
    refresh();
  }

  function select(index) {
    var previous = selected;
    if (previous >= 0 && spans[previous]) { spans[previous].classList.remove("w2t-selected"); }
    selected = index;
    if (previous >= 0) { restyle(previous); }
    if (index >= 0 && spans[index]) {
      spans[index].classList.add("w2t-selected");
      spans[index].scrollIntoView({block: "nearest"});
      restyle(index);
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
    $("w2t-saved").textContent = text;
    var link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([text], {type: "application/json"}));
    link.download = data.labels_file;
    root.appendChild(link);
    link.click();
    link.remove();
  }

  function fromView(event) { return event.composedPath().indexOf(host) >= 0; }

  window.addEventListener("click", function (event) {
    if (fromView(event)) { return; }
    event.preventDefault();
    var index = blockOf(event);
    if (index >= 0) { select(index); flip(index); }
  }, true);
  window.addEventListener("mousemove", function (event) {
    if (fromView(event)) { return; }
    var index = blockOf(event);
    if (index >= 0 && index !== hovered) { hovered = index; info(index); }
  }, {capture: true, passive: true});
  var settle = 0;
  window.addEventListener("scroll", function (event) {
    if (event.target !== document) { redraw(); return; }
    scrolled();
    // what the page fixes or makes sticky moves with the viewport: placed again once the scrolling stops
    clearTimeout(settle);
    settle = setTimeout(redraw, 150);
  }, {capture: true, passive: true});
  window.addEventListener("resize", redraw);
  window.addEventListener("load", redraw);
  document.addEventListener("toggle", redraw, true);
  if (window.ResizeObserver) { new ResizeObserver(redraw).observe(document.getElementById("w2t-page")); }
  $("w2t-save").addEventListener("click", save);
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    var key = event.key.toLowerCase();
    if (fromView(event) && (key === " " || key === "enter")) { return; }  // the focused button's own keys
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
  draw();
  refresh();
}());
