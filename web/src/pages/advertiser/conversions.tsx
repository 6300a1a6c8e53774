import { useState } from 'react';
import { CopyField } from '../../components/copy-field.tsx';

const GOALS = [
  { id: 'purchase', label: 'Purchase' },
  { id: 'registration', label: 'Registration' },
  { id: 'intermediate', label: 'Intermediate goal' },
] as const;

/**
 * How an advertiser reports conversions: the click id travels in the landing URL (`{click_id}`),
 * and comes back from the shop's server (postback) or its thank-you page (pixel).
 */
export function ConversionsPage() {
  const [goal, setGoal] = useState<(typeof GOALS)[number]['id']>('purchase');
  // The page is served by the API server itself, so its origin is the one visitors' clicks reach.
  const origin = location.origin;
  const query = `click_id={click_id}&goal=${goal}`;
  const postback = `${origin}/api/serve/conversion?${query}`;
  const pixel = `<img src="${origin}/api/serve/pixel.gif?${query}" width="1" height="1" alt="">`;
  return (
    <>
      <div className="page-head">
        <h1>Conversions</h1>
      </div>
      <p className="lead">
        A conversion is a purchase, a registration or another goal reached by a visitor who came from one of your ads. Report it
        in one of the two ways below; it then counts in the orders, CR and CPO of the ad, its campaign, the site and the device
        the click came from, on the day of the conversion.
      </p>

      <section className="card steps" aria-labelledby="step-click-id">
        <h2 id="step-click-id">1. Put the click id in your landing page’s address</h2>
        <p>
          Write <code>{'{click_id}'}</code> in the landing page URL of each ad. When a visitor clicks, Nativa replaces it with
          that click’s id, for example:
        </p>
        <pre className="example">
          {`https://shop.example/shoes?utm_source=nativa&click_id={click_id}
→ https://shop.example/shoes?utm_source=nativa&click_id=Zm9vYmFyYmF6cXV4MTIz`}
        </pre>
        <p>
          Your site keeps that value (in the order, or a cookie) until the visitor converts. A click that was not billed (a robot,
          a limit reached) arrives with an empty <code>click_id</code>: nothing to report then.
        </p>
      </section>

      <section className="card steps" aria-labelledby="step-report">
        <h2 id="step-report">2. Report the conversion</h2>
        <label className="goal">
          <span>Goal of this conversion</span>
          <select value={goal} onChange={(event) => setGoal(event.target.value as typeof goal)}>
            {GOALS.map((entry) => (
              <option key={entry.id} value={entry.id}>
                {entry.label}
              </option>
            ))}
          </select>
        </label>
        <h3>From your server: the postback URL</h3>
        <p>
          Request this URL (GET) from your server when the goal is reached, with the stored click id in place of{' '}
          <code>{'{click_id}'}</code>. It answers <code>{'{"result":"recorded"}'}</code> the first time,{' '}
          <code>{'{"result":"duplicate"}'}</code> after that, and 404 for a click id Nativa did not bill.
        </p>
        <CopyField label="Postback URL" value={postback} />
        <h3>From the thank-you page: the pixel</h3>
        <p>
          Or put this image on the page the visitor sees after the goal, with the click id written into it by your page. It always
          answers a transparent 1×1 GIF, so it never breaks the page.
        </p>
        <CopyField label="Conversion pixel" value={pixel} />
        <p className="hint">
          Each click counts once per goal: a reload of the thank-you page or a repeated postback is not counted twice. The goal
          chooser above the statistics (all conversions, purchases, registrations, intermediate goals) shows each goal apart.
        </p>
      </section>
    </>
  );
}
