// The adapter's unit tests in Prebid's adapter test conventions (test/spec/modules/*_spec.js:
// describe the adapter, then isBidRequestValid, buildRequests, interpretResponse, getUserSyncs),
// written with node:test and node:assert so that Nativa's own test run executes them
// (test/integrations/prebid-adapter.test.ts); in a Prebid.js checkout they port to mocha/chai
// line for line.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BIDDER_CODE, NATIVE, noticeUrlOf, spec } from './nativaBidSpec.js';

const ENDPOINT = 'https://ads.nativa.example';
const NATIVE_REQUEST = { ver: '1.2', assets: [{ id: 1, required: 1, title: { len: 80 } }, { id: 2, required: 1, data: { type: 1 } }] };
const SCHAIN = { ver: '1.0', complete: 1, nodes: [{ asi: 'publisher.example', sid: '42', hp: 1 }] };

function bidRequest(params = {}, extra = {}) {
  return {
    bidder: BIDDER_CODE,
    bidId: 'bid-1',
    adUnitCode: 'slot',
    params: { blockId: 7, endpoint: ENDPOINT, ...params },
    mediaTypes: { native: { ortb: NATIVE_REQUEST } },
    nativeOrtbRequest: NATIVE_REQUEST,
    ...extra,
  };
}

const bidderRequest = {
  bidderRequestId: 'request-1',
  timeout: 1000,
  refererInfo: { page: 'https://news.example/today', domain: 'news.example' },
  gdprConsent: { gdprApplies: true, consentString: 'CONSENT' },
  gppConsent: { gppString: 'DBABMA~CONSENT', applicableSections: [2] },
  uspConsent: '1YNN',
  ortb2: { source: { ext: { schain: SCHAIN } } },
};

describe('nativaBidAdapter', () => {
  it('is the nativa bidder, for native', () => {
    assert.equal(spec.code, 'nativa');
    assert.deepEqual(spec.supportedMediaTypes, [NATIVE]);
  });

  describe('isBidRequestValid', () => {
    it('accepts a block id and an https endpoint', () => {
      assert.equal(spec.isBidRequestValid(bidRequest()), true);
      assert.equal(spec.isBidRequestValid(bidRequest({ blockId: '7', siteId: 3 })), true);
    });
    it('refuses a missing or bad block id, a bad site id, an endpoint that is not https, a unit that is not native', () => {
      assert.equal(spec.isBidRequestValid(bidRequest({ blockId: undefined })), false);
      assert.equal(spec.isBidRequestValid(bidRequest({ blockId: 0 })), false);
      assert.equal(spec.isBidRequestValid(bidRequest({ blockId: '7a' })), false);
      assert.equal(spec.isBidRequestValid(bidRequest({ siteId: -1 })), false);
      assert.equal(spec.isBidRequestValid(bidRequest({ endpoint: 'http://ads.nativa.example' })), false);
      assert.equal(spec.isBidRequestValid(bidRequest({ endpoint: 'not a url' })), false);
      assert.equal(spec.isBidRequestValid(bidRequest({}, { mediaTypes: { banner: { sizes: [[300, 250]] } } })), false);
    });
  });

  describe('buildRequests', () => {
    it('posts an OpenRTB 2.6 request with the native request, as text/plain', () => {
      const [request] = spec.buildRequests([bidRequest({ siteId: 3, publisherId: 5 })], bidderRequest);
      assert.equal(request.method, 'POST');
      assert.equal(request.url, `${ENDPOINT}/api/openrtb2/auction`);
      assert.equal(request.options.contentType, 'text/plain');
      const data = JSON.parse(request.data);
      assert.equal(data.id, 'request-1');
      assert.deepEqual(data.imp, [{ id: 'bid-1', tagid: '7', native: { ver: '1.2', request: JSON.stringify(NATIVE_REQUEST) }, ext: { siteId: 3 } }]);
      assert.deepEqual(data.site, { domain: 'news.example', page: 'https://news.example/today', publisher: { id: '5' } });
      assert.equal(data.tmax, 1000);
    });
    it('passes consent (GDPR, GPP, US privacy) and the supply chain', () => {
      const data = JSON.parse(spec.buildRequests([bidRequest()], bidderRequest)[0].data);
      assert.deepEqual(data.regs, { gdpr: 1, gpp: 'DBABMA~CONSENT', gpp_sid: [2], us_privacy: '1YNN' });
      assert.deepEqual(data.user, { consent: 'CONSENT' });
      assert.deepEqual(data.source.schain, SCHAIN);
      assert.deepEqual(data.source.ext.schain, SCHAIN);
    });
    it('sends no regs when Prebid has no consent', () => {
      const data = JSON.parse(spec.buildRequests([bidRequest()], { bidderRequestId: 'r' })[0].data);
      assert.equal(data.regs, undefined);
      assert.equal(data.user, undefined);
      assert.equal(data.source, undefined);
    });
    it('makes one request per Nativa server', () => {
      const requests = spec.buildRequests(
        [bidRequest(), bidRequest({ blockId: 8 }, { bidId: 'bid-2' }), bidRequest({ endpoint: 'https://other.example' }, { bidId: 'bid-3' })],
        bidderRequest,
      );
      assert.deepEqual(
        requests.map((request) => [request.url, JSON.parse(request.data).imp.map((imp) => imp.tagid)]),
        [
          [`${ENDPOINT}/api/openrtb2/auction`, ['7', '8']],
          ['https://other.example/api/openrtb2/auction', ['7']],
        ],
      );
    });
    it('sends the floor Prebid’s floors module gives', () => {
      const floored = bidRequest({}, { getFloor: () => ({ floor: 1.5, currency: 'USD' }) });
      const data = JSON.parse(spec.buildRequests([floored], bidderRequest)[0].data);
      assert.equal(data.imp[0].bidfloor, 1.5);
      assert.equal(data.imp[0].bidfloorcur, 'USD');
    });
  });

  const NURL = `${ENDPOINT}/api/openrtb2/notice?token=t&event=win&price=\${AUCTION_PRICE}`;
  const BURL = `${ENDPOINT}/api/openrtb2/notice?token=t&event=billing&price=\${AUCTION_PRICE}`;

  describe('interpretResponse', () => {
    const native = { ver: '1.2', assets: [{ id: 1, title: { text: 'A fine product' } }], link: { url: `${ENDPOINT}/api/serve/click/x` } };
    const body = {
      id: 'request-1',
      cur: 'EUR',
      seatbid: [
        {
          seat: '12',
          bid: [
            {
              id: 'b',
              impid: 'bid-1',
              price: 5,
              adm: JSON.stringify(native),
              nurl: NURL,
              burl: BURL,
              adomain: ['shop.example'],
              crid: '99',
              cid: '3',
            },
          ],
        },
      ],
    };
    it('answers the CPM in the server’s currency with the native markup', () => {
      const [request] = spec.buildRequests([bidRequest()], bidderRequest);
      const [bid] = spec.interpretResponse({ body }, request);
      assert.deepEqual(bid, {
        requestId: 'bid-1',
        nurl: NURL,
        burl: BURL,
        cpm: 5,
        currency: 'EUR',
        ttl: 300,
        creativeId: '99',
        netRevenue: true,
        mediaType: NATIVE,
        native: { ortb: native },
        meta: { advertiserDomains: ['shop.example'], networkName: 'Nativa', advertiserId: '12' },
      });
    });
    it('answers nothing for no bid (204), a bid for another impression, or markup that is not JSON', () => {
      const [request] = spec.buildRequests([bidRequest()], bidderRequest);
      assert.deepEqual(spec.interpretResponse({ body: undefined }, request), []);
      assert.deepEqual(spec.interpretResponse({ body: '' }, request), []);
      const other = structuredClone(body);
      other.seatbid[0].bid[0].impid = 'bid-9';
      assert.deepEqual(spec.interpretResponse({ body: other }, request), []);
      const broken = structuredClone(body);
      broken.seatbid[0].bid[0].adm = '<div>';
      assert.deepEqual(spec.interpretResponse({ body: broken }, request), []);
    });
  });

  describe('onBidWon and onBidBillable', () => {
    it('fire the bid’s win and billing notices with the price Prebid cleared', () => {
      const fired = [];
      const previous = globalThis.Image;
      globalThis.Image = class {
        set src(url) {
          fired.push(url);
        }
      };
      try {
        const won = { nurl: NURL, burl: BURL, cpm: 4.2, originalCpm: 5 };
        spec.onBidWon(won);
        spec.onBidBillable(won);
        spec.onBidWon({ cpm: 5 });
      } finally {
        globalThis.Image = previous;
      }
      assert.deepEqual(fired, [
        `${ENDPOINT}/api/openrtb2/notice?token=t&event=win&price=5`,
        `${ENDPOINT}/api/openrtb2/notice?token=t&event=billing&price=5`,
      ]);
      assert.equal(noticeUrlOf(NURL, { cpm: 0.0021 }), `${ENDPOINT}/api/openrtb2/notice?token=t&event=win&price=0.0021`);
      assert.equal(noticeUrlOf(NURL, {}), `${ENDPOINT}/api/openrtb2/notice?token=t&event=win&price=`);
    });
  });

  describe('getUserSyncs', () => {
    it('syncs nothing', () => {
      assert.deepEqual(spec.getUserSyncs({ iframeEnabled: true, pixelEnabled: true }, []), []);
    });
  });
});
