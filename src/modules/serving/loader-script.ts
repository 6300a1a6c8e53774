/**
 * The embed script publishers load with `<script async src=".../api/serve/loader.js">`. It fills
 * every `[data-nativa-block]` element with that block's teasers. It is plain ES2017 with no
 * dependencies and no globals: one IIFE, every failure swallowed, so a slow or absent server
 * leaves the publisher's page exactly as it was (the container stays empty).
 *
 * Viewability (the IAB/MRC display standard): a teaser is viewed once at least half of it has been
 * visible for one continuous second, on a page that is not hidden. An IntersectionObserver
 * (threshold 0.5) starts a one-second timer per teaser, cancelled when it leaves view or the page
 * is hidden; when it fires, the teaser's impression token is queued and sent once, in a beacon
 * batched with the other teasers' (text/plain, so no CORS preflight). Without IntersectionObserver
 * nothing is reported: a view that cannot be measured is not counted.
 *
 * Every block a page view fills is asked for with one page id, made once per page view (a second
 * copy of the script on the page finds it on `window` under a registered symbol), so the server shows no ad twice on the
 * page. The visitor id, for frequency caps, is kept in the site's localStorage (first-party: one
 * id per site); where storage is refused, the server falls back to its own daily hash.
 */
export const LOADER_SCRIPT = `/* Nativa teaser loader */
(function () {
  'use strict';
  try {
    var script = document.currentScript || document.querySelector('script[src*="/api/serve/loader.js"]');
    if (!script || !window.fetch) return;
    var base = new URL(script.src, location.href).origin;

    function randomId() {
      var bytes = new Uint8Array(16);
      (window.crypto || window.msCrypto).getRandomValues(bytes);
      var text = '';
      for (var i = 0; i < bytes.length; i++) text += ('0' + bytes[i].toString(16)).slice(-2);
      return text;
    }

    // Kept under a registered symbol: shared by every copy of the script, invisible as a global name.
    var pageKey = typeof Symbol === 'function' ? Symbol.for('nativa.pageId') : '__nativaPageId';
    var pageId = window[pageKey] || (window[pageKey] = randomId());
    var visitorId = '';
    try {
      visitorId = localStorage.getItem('nativa_vid') || '';
      if (!/^[A-Za-z0-9_-]{16,64}$/.test(visitorId)) {
        visitorId = randomId();
        localStorage.setItem('nativa_vid', visitorId);
      }
    } catch (error) {
      visitorId = '';
    }

    function el(tag, className, text) {
      var node = document.createElement(tag);
      if (className) node.className = className;
      if (text) node.textContent = text;
      return node;
    }

    /** Every amount of the price text in the platform currency: from 90 (was 120) -25% becomes from $90.00 (was $120.00) -25%. */
    function price(text, currency) {
      var format;
      try {
        format = new Intl.NumberFormat(undefined, { style: 'currency', currency: currency });
      } catch (error) {
        return text + ' ' + currency;
      }
      return text.replace(/-?[0-9]+(?:[.][0-9]+)?%?/g, function (amount) {
        return /%$/.test(amount) ? amount : format.format(Number(amount));
      });
    }

    var queue = [];
    var sending = 0;
    var watched = new Map();
    var observer;

    function send() {
      clearTimeout(sending);
      sending = 0;
      if (!queue.length) return;
      var url = base + '/api/serve/views';
      var body = queue.join('\\n');
      queue = [];
      if (!(navigator.sendBeacon && navigator.sendBeacon(url, body))) {
        fetch(url, { method: 'POST', body: body, keepalive: true, mode: 'no-cors' }).catch(function () {});
      }
    }

    function arm(entry) {
      if (entry.done || entry.timer || !entry.visible || document.visibilityState === 'hidden') return;
      entry.timer = setTimeout(function () {
        entry.done = true;
        observer.unobserve(entry.node);
        queue.push(entry.token);
        if (!sending) sending = setTimeout(send, 200);
      }, 1000);
    }

    function disarm(entry) {
      clearTimeout(entry.timer);
      entry.timer = 0;
    }

    function watch(node, token) {
      if (!window.IntersectionObserver || !token) return;
      if (!observer) {
        observer = new IntersectionObserver(function (records) {
          records.forEach(function (record) {
            var entry = watched.get(record.target);
            entry.visible = record.isIntersecting && record.intersectionRatio >= 0.5;
            if (entry.visible) arm(entry);
            else disarm(entry);
          });
        }, { threshold: 0.5 });
        document.addEventListener('visibilitychange', function () {
          var hidden = document.visibilityState === 'hidden';
          watched.forEach(hidden ? disarm : arm);
          if (hidden) send();
        });
        addEventListener('pagehide', send);
      }
      watched.set(node, { node: node, token: token, visible: false, timer: 0, done: false });
      observer.observe(node);
    }

    // A block's design (docs/publisher.md, Block design): fixed tile heights, the figures of
    // block-design.ts, so the height the embed code reserved is the height the teasers take.
    var FONTS = { system: 'system-ui,sans-serif', arial: 'Arial,sans-serif', georgia: 'Georgia,serif', verdana: 'Verdana,sans-serif' };
    var PICTURE = { square: 164, wide: 92, round: 164, none: 0 };
    function designed(container, list, d) {
      var line = Math.ceil(d.titleSize * 1.3);
      var picture = PICTURE[d.imageShape] || 0;
      var tile = (picture ? picture + 6 : 0) + 18 + 3 * line;
      list.style.cssText = 'list-style:none;margin:0;padding:0;display:grid;gap:12px;grid-template-columns:repeat(' + d.columns +
        ',minmax(0,1fr));background:' + d.background + ';color:' + d.textColor + ';font-family:' + (FONTS[d.font] || d.font) + ';';
      if (d.heading) {
        var heading = container.appendChild(el('div', 'nativa-heading', d.heading));
        heading.style.cssText = 'height:28px;line-height:28px;font-weight:700;overflow:hidden;font-family:' + (FONTS[d.font] || d.font);
      }
      list.childNodes.forEach(function (item) {
        item.style.cssText = 'height:' + tile + 'px;overflow:hidden;font-size:12px;line-height:18px;';
        var link = item.firstChild;
        link.style.position = 'relative';
        var image = link.querySelector('img');
        if (image && !picture) link.removeChild(image);
        else if (image) {
          image.style.cssText = 'display:block;width:' + (d.imageShape === 'round' ? picture + 'px;max-width:100%;margin:0 auto' : '100%') +
            ';height:' + picture + 'px;object-fit:cover;border-radius:' + (d.imageShape === 'round' ? '50%' : '4px');
        }
        var byline = link.querySelector('.nativa-byline');
        byline.style.cssText = 'display:block;height:18px;overflow:hidden;margin-top:' + (picture ? 6 : 0) + 'px;opacity:.8;';
        var mark = byline.firstChild;
        if (d.adMark !== 'byline' && image && picture) {
          var corner = d.adMark.split('-');
          link.appendChild(mark).style.cssText = 'position:absolute;' + corner[0] + ':4px;' + corner[1] +
            ':4px;padding:0 4px;border-radius:3px;font-weight:700;background:' + d.background + ';color:' + d.textColor + ';';
        }
        var title = link.querySelector('.nativa-title');
        title.style.cssText = 'display:-webkit-box;-webkit-box-orient:vertical;-webkit-line-clamp:2;overflow:hidden;font-weight:600;' +
          'font-size:' + d.titleSize + 'px;line-height:' + line + 'px;height:' + 2 * line + 'px;';
        var price = link.querySelector('.nativa-price');
        if (price) price.style.cssText = 'display:block;height:' + line + 'px;line-height:' + line + 'px;overflow:hidden;color:' + d.priceColor;
      });
    }

    function render(container, data) {
      if (!data || !data.teasers || !data.teasers.length) return;
      var list = el('ul', 'nativa-teasers');
      list.setAttribute('aria-label', data.label || 'Sponsored');
      list.style.cssText = 'list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:12px;';
      data.teasers.forEach(function (teaser) {
        var item = el('li', 'nativa-teaser');
        item.style.cssText = 'flex:1 1 160px;max-width:240px;font:14px/1.3 sans-serif;';
        var link = el('a');
        link.href = teaser.url;
        link.target = '_blank';
        link.rel = 'sponsored noopener';
        link.style.cssText = 'display:block;color:inherit;text-decoration:none;';
        if (teaser.image) {
          var image = el('img');
          image.src = teaser.image;
          image.alt = teaser.title;
          image.width = 164;
          image.height = 164;
          image.loading = 'lazy';
          image.style.cssText = 'display:block;width:100%;height:auto;aspect-ratio:1/1;object-fit:cover;border-radius:4px;';
          link.appendChild(image);
        }
        // Disclosure, as every ad network shows it: an "Ad" mark and whose ad it is.
        var byline = link.appendChild(el('span', 'nativa-byline'));
        byline.style.cssText = 'display:block;margin-top:6px;font-size:12px;color:#595959;';
        byline.appendChild(el('span', 'nativa-ad-mark', 'Ad')).style.cssText =
          'display:inline-block;margin-right:6px;padding:0 4px;border:1px solid currentColor;border-radius:3px;font-weight:700;';
        if (teaser.domain) byline.appendChild(el('span', 'nativa-domain', teaser.domain));
        link.appendChild(el('span', 'nativa-title', teaser.title)).style.cssText = 'display:block;font-weight:600;margin-top:2px;';
        if (teaser.price) {
          link.appendChild(el('span', 'nativa-price', price(teaser.price, data.currency || 'USD'))).style.cssText =
            'display:block;margin-top:2px;';
        }
        item.appendChild(link);
        list.appendChild(item);
      });
      container.textContent = '';
      if (data.design) designed(container, list, data.design);
      container.appendChild(list);
      list.childNodes.forEach(function (item, index) {
        watch(item, data.teasers[index].view);
      });
    }

    function fill(container) {
      if (container.getAttribute('data-nativa-state')) return;
      var id = container.getAttribute('data-nativa-block');
      if (!/^[0-9]+$/.test(id || '')) return;
      container.setAttribute('data-nativa-state', 'loading');
      var query = '?page=' + pageId + (visitorId ? '&visitor=' + visitorId : '');
      fetch(base + '/api/serve/blocks/' + id + '/teasers' + query, { credentials: 'include', mode: 'cors' })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (data) {
          render(container, data);
          container.setAttribute('data-nativa-state', 'done');
        })
        .catch(function () { container.setAttribute('data-nativa-state', 'failed'); });
    }

    var containers = document.querySelectorAll('[data-nativa-block]');
    for (var i = 0; i < containers.length; i++) fill(containers[i]);
  } catch (error) {
    /* The page must never notice a failure of the ad script. */
  }
})();
`;

/** A transparent 1×1 GIF, the answer of every tracking pixel. */
export const PIXEL_GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
