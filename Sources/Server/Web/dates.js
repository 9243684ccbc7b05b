// Whether a message mentions a day or a time, so it gets "Add to calendar". The server's model
// reads the event itself; this only decides where the action is offered.

const DAY = /\b(today|tonight|tomorrow|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b/i;
const CLOCK = /\b\d{1,2}(:[0-5]\d)?\s?(am|pm|a\.m\.|p\.m\.)(?![a-z])|\b([01]?\d|2[0-3]):[0-5]\d\b|\b(noon|midnight)\b/i;
const MONTH_DAY =
  /\b(jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sep(t|tember)?|oct(ober)?|nov(ember)?|dec(ember)?)\.? \d{1,2}\b|\b\d{1,2} (jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sep(t|tember)?|oct(ober)?|nov(ember)?|dec(ember)?)\b|\b20\d\d-\d\d-\d\d\b/i;

/** @param {string} text */
export function mentionsDate(text) {
  return DAY.test(text) || CLOCK.test(text) || MONTH_DAY.test(text);
}
