/**
 * The embed script publishers load with `<script async src=".../api/serve/loader.js">`. It fills
 * every `[data-nativa-block]` element with that block's teasers. It is plain ES2017 with no
 * dependencies and no globals: one IIFE, every failure swallowed, so a slow or absent server
 * leaves the publisher's page as it was. A block with nothing to show, or whose request failed, is
 * collapsed (`display: none`), so its reserved height leaves no blank gap.
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
 *
 * Consent (docs/privacy.md): before asking for teasers the script reads the page's CMP, TCF v2.2
 * (`__tcfapi` addEventListener) and GPP (`__gpp` addEventListener), and Global Privacy Control,
 * waiting at most CONSENT_WAIT_MS for the CMP. It sends what it got (`gdpr`, `gdpr_consent`,
 * `gpp`, `gpp_sid`, `gpc`); the server decides with the IAB's decoders. The script itself touches
 * localStorage only when the CMP's own reading grants purposes 1, 3 and 4 and no US opt-out or GPC
 * is set; a CMP that does not answer in time counts as no consent (`gdpr=1` without a string).
 */
import { renderTeaserList, teaserWords } from './teaser-render.ts';

const CONSENT_WAIT_MS = 500;
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

    // What the page's CMP and the browser say, read once for every block (bounded wait).
    var consent = new Promise(function (resolve) {
      var found = { query: '', store: navigator.globalPrivacyControl !== true, gpc: navigator.globalPrivacyControl === true };
      var waiting = 0;
      function add(name, value) {
        found.query += '&' + name + '=' + encodeURIComponent(value);
      }
      function finish() {
        if (waiting < 0) return;
        waiting = -1;
        if (found.gpc) add('gpc', 1);
        // A CMP that did not answer in time sends gdpr=1 without a string: no consent.
        if (found.cmp) add('gdpr', found.tcf && found.tcf.gdprApplies === false ? 0 : 1);
        if (found.tcf && found.tcf.tcString) add('gdpr_consent', found.tcf.tcString);
        if (found.gpp) {
          add('gpp', found.gpp.gppString);
          add('gpp_sid', (found.gpp.applicableSections || []).join(','));
        }
        resolve(found);
      }
      function settle() {
        if (--waiting === 0) finish();
      }
      try {
        if (typeof window.__tcfapi === 'function') {
          waiting++;
          found.store = false;
          found.cmp = true;
          window.__tcfapi('addEventListener', 2, function (data, success) {
            if (!success || !data || found.tcf) return;
            if (data.gdprApplies !== false && data.eventStatus !== 'tcloaded' && data.eventStatus !== 'useractioncomplete') return;
            found.tcf = data;
            var purposes = (data.purpose && data.purpose.consents) || {};
            found.store = !found.gpc && (data.gdprApplies === false || (purposes[1] && purposes[3] && purposes[4])) && found.gppStore !== false;
            settle();
          });
        }
        if (typeof window.__gpp === 'function') {
          waiting++;
          window.__gpp('addEventListener', function (event, success) {
            var data = event && event.pingData;
            if (!success || !data || found.gpp || data.signalStatus !== 'ready') return;
            found.gpp = data;
            found.gppStore = !/"(SaleOptOut|SharingOptOut|TargetedAdvertisingOptOut)":1\b|"OptOutSale":"Y"/.test(JSON.stringify(data.parsedSections || {}));
            if (!found.gppStore) found.store = false;
            settle();
          });
        }
      } catch (error) {
        found.store = false;
      }
      if (waiting === 0) finish();
      else setTimeout(finish, ${CONSENT_WAIT_MS});
    });

    /** The visitor id from the site's localStorage, made there when missing; none without consent. */
    function visitorId(found) {
      if (!found.store) return '';
      try {
        var id = localStorage.getItem('nativa_vid') || '';
        if (!/^[A-Za-z0-9_-]{16,64}$/.test(id)) {
          id = randomId();
          localStorage.setItem('nativa_vid', id);
        }
        return id;
      } catch (error) {
        return '';
      }
    }

    var teaserWords = ${teaserWords.toString()};
    var renderTeaserList = ${renderTeaserList.toString()};

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
        var heading = container.appendChild(document.createElement('div'));
        heading.className = 'nativa-heading';
        heading.textContent = d.heading;
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

    // A block with nothing to show (no eligible ad, a refused or filtered request, an error) takes
    // no room: the height its embed code reserved would otherwise stay a blank gap on the page.
    function collapse(container) {
      container.textContent = '';
      container.style.display = 'none';
    }

    function render(container, data) {
      if (!data || !data.teasers || !data.teasers.length) return collapse(container);
      // The words (the "Ad" mark, the price's) follow the page: the block's data-nativa-lang, else
      // the page's lang, else the browser's language. The answer's English label is not used.
      var language = container.getAttribute('data-nativa-lang') || document.documentElement.lang || navigator.language;
      var list = renderTeaserList(document, { teasers: data.teasers, currency: data.currency, language: language });
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
      consent
        .then(function (found) {
          var visitor = visitorId(found);
          var query = '?page=' + pageId + (visitor ? '&visitor=' + visitor : '') + found.query;
          // Without consent the request carries no cookie: Nativa's visitor cookie is not read.
          return fetch(base + '/api/serve/blocks/' + id + '/teasers' + query, {
            credentials: found.store ? 'include' : 'omit',
            mode: 'cors',
          });
        })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (data) {
          render(container, data);
          container.setAttribute('data-nativa-state', 'done');
        })
        .catch(function () {
          collapse(container);
          container.setAttribute('data-nativa-state', 'failed');
        });
    }

    var containers = document.querySelectorAll('[data-nativa-block]');
    for (var i = 0; i < containers.length; i++) fill(containers[i]);
  } catch (error) {
    /* The page must never notice a failure of the ad script. */
  }
})();
`;

/** A transparent 1×1 GIF, the answer of every tracking pixel. */
let minifiedLoader: Promise<string> | undefined;

/**
 * The loader as it travels: minified once per process (terser). The source above is written to be
 * read and reviewed; publishers are promised at most 4 KB gzipped, which the readable text with
 * consent reading, viewability and block designs no longer fits (12.8 KB, 4.4 KB gzipped; minified
 * about 3 KB gzipped). A test holds the served text to the bound.
 */
export function minifiedLoaderScript(): Promise<string> {
  // terser is loaded here, not at start: the minified text is made once, and terser's code stays
  // out of the memory of a process that never serves the loader (docs/performance.md, "Idle memory").
  minifiedLoader ??= import('terser')
    .then(({ minify }) =>
      minify(LOADER_SCRIPT, { ecma: 2015, compress: { passes: 2 }, mangle: true, format: { comments: false } }),
    )
    .then((result) => {
      if (result.code === undefined) throw new Error('the loader script did not minify');
      return result.code;
    });
  return minifiedLoader;
}

export const PIXEL_GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
