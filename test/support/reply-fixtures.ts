/** Buyer answers as lenders' APIs really send them. */

export const JSON_ACCEPTED_NESTED = JSON.stringify({
  response: {
    result: { status: 'ACCEPTED', code: 1 },
    lead: { id: 'LND-88231', price: '42.50' },
    redirect: { url: 'https://apply.lender.example/continue?token=ab12&lead=LND-88231' },
  },
  messages: [],
});

export const JSON_REJECTED_WITH_ERRORS = JSON.stringify({
  response: {
    result: { status: 'REJECTED', code: 0 },
    lead: { id: 'LND-88232' },
    errors: ['Duplicate lead', 'State not serviced'],
  },
});

/** Bids in an array of offers, numbers as strings, keys with spaces. */
export const JSON_PING_OFFERS = JSON.stringify({
  success: 'true',
  offers: [
    { 'bid amount': '7.25', offer_id: 991 },
    { 'bid amount': '5.00', offer_id: 992 },
  ],
});

export const JSON_NUMERIC_PRICE = '{"accepted": true, "price": 12.5, "ref": 123456}';

/** Only says why it declines: no status at all. */
export const JSON_REASON_ONLY = '{"reason":"Outside lending hours"}';

/** HTTP 200, but the body is the buyer's own failure. */
export const JSON_200_ERROR_BODY = '{"error":{"code":500,"message":"Internal Server Error"}}';

export const JSON_TRUNCATED = '{"response":{"result":{"status":"ACCEPTED"},"lead":{"id":"LND-';

export const XML_ACCEPTED = `<?xml version="1.0" encoding="UTF-8"?>
<response>
  <result status="accepted" code="1"/>
  <lead id="A-77120">
    <price currency="USD">$18.75</price>
    <redirect>https://apply.lender.example/r/A-77120</redirect>
  </lead>
</response>`;

export const XML_REJECTED = `<?xml version="1.0"?>
<response>
  <result status="rejected" code="0"/>
  <message><![CDATA[Lead rejected: duplicate within 30 days]]></message>
</response>`;

export const XML_SOAP_ACCEPTED = `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:ns1="urn:lender:leads">
  <soap:Body>
    <ns1:PostLeadResponse>
      <ns1:Decision>Approved</ns1:Decision>
      <ns1:Amount>30.00</ns1:Amount>
    </ns1:PostLeadResponse>
  </soap:Body>
</soap:Envelope>`;

export const XML_MALFORMED = '<response><result status="accepted"><price>12.00</result></response>';

export const XML_XXE = `<?xml version="1.0"?>
<!DOCTYPE response [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<response><result status="accepted"/><reason>&secret;</reason></response>`;

export const XML_BILLION_LAUGHS = `<?xml version="1.0"?>
<!DOCTYPE lolz [
  <!ENTITY lol "lol">
  <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<response><result status="accepted"/><reason>&lol3;</reason></response>`;

export const TEXT_ACCEPTED = 'ACCEPTED|REF123|https://apply.lender.example/go/REF123\n';

export const TEXT_REJECTED = 'REJECT: duplicate\n';

export const HTML_BAD_GATEWAY = `<!DOCTYPE html>
<html><head><title>502 Bad Gateway</title></head>
<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>`;

export const HTML_FRAGMENT = '<h1>Service Unavailable</h1><p>ACCEPTED leads are queued</p>';
