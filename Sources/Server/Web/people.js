// The people a direct message is being started with ("New channel or message"): chosen by name
// from those the reader knows, one or several (several make a group direct message). The server
// lists no users, so the people offered are the members of the reader's channels; someone the
// reader shares no channel with is reached by their user id.

/**
 * @typedef {import('./types.js').User} User
 * @typedef {import('./types.js').ChannelSummary} ChannelSummary
 * @typedef {import('./state.js').Action} Action
 *
 * @typedef {{ id: string, name: string }} Person
 * @typedef {{ chosen: Person[], note: string }} PeopleState
 *   chosen: in the order picked; note: why the last name typed was not taken ('' when it was)
 *
 * @typedef {{ type: 'people/chose', person: Person }
 *   | { type: 'people/unchose', id: string }
 *   | { type: 'people/note', text: string }
 *   | { type: 'people/cleared' }} PeopleAction
 */

/** A user id as the server accepts it (UserID.validated). */
const USER_ID = /^[A-Za-z0-9_.@-]{1,64}$/;

/** How many others a direct message holds at most (the server's 100 members, the reader one). */
export const MAX_CHOSEN = 99;

/** @type {PeopleState} */
export const initialPeople = { chosen: [], note: '' };

/**
 * @param {PeopleState} state
 * @param {Action} action
 * @returns {PeopleState}
 */
export function people(state, action) {
  switch (action.type) {
    case 'people/chose':
      if (state.chosen.some((person) => person.id === action.person.id)) return state.note ? { ...state, note: '' } : state;
      if (state.chosen.length >= MAX_CHOSEN) return { ...state, note: `A message holds at most ${MAX_CHOSEN} others.` };
      return { chosen: [...state.chosen, action.person], note: '' };
    case 'people/unchose':
      return { ...state, chosen: state.chosen.filter((person) => person.id !== action.id) };
    case 'people/note':
      return state.note === action.text ? state : { ...state, note: action.text };
    case 'people/cleared':
    case 'session/signedOut':
      return initialPeople;
    default:
      return state;
  }
}

/**
 * Everyone in the reader's channels but the reader, once each, by name.
 *
 * @param {ChannelSummary[]} list
 * @param {string | null} me
 * @returns {Person[]}
 */
export function knownPeople(list, me) {
  /** @type {Map<string, Person>} */
  const byId = new Map();
  for (const summary of list) {
    for (const member of summary.members) {
      if (member.id !== me && !byId.has(member.id)) byId.set(member.id, { id: member.id, name: member.name });
    }
  }
  return [...byId.values()].sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}

/**
 * Whom a typed name means: a known person by name or id (either case), else, when it could be
 * a user id, that id (the server says whether such a user exists).
 *
 * @param {Person[]} known
 * @param {string} typed
 * @returns {{ person: Person } | { error: string }}
 */
export function personFor(known, typed) {
  const text = typed.trim();
  if (!text) return { error: 'Type a name first.' };
  const lower = text.toLowerCase();
  const byName = known.filter((person) => person.name.toLowerCase() === lower);
  if (byName.length === 1) return { person: byName[0] };
  const byId = known.find((person) => person.id.toLowerCase() === lower);
  if (byId) return { person: byId };
  if (byName.length > 1) return { error: `Several people are called ${text}: type their user id.` };
  if (USER_ID.test(text)) return { person: { id: text, name: text } };
  return { error: `No one called ${text} is in your channels; type their user id.` };
}

/**
 * What "open" makes of the chosen people and the name still in the box: the ids to message, or
 * why it cannot.
 *
 * @param {Person[]} known
 * @param {Person[]} chosen
 * @param {string} typed
 * @param {string | null} me
 * @returns {{ ids: string[] } | { error: string }}
 */
export function directMembers(known, chosen, typed, me) {
  const ids = chosen.map((person) => person.id);
  if (typed.trim()) {
    const found = personFor(known, typed);
    if ('error' in found) return found;
    if (!ids.includes(found.person.id)) ids.push(found.person.id);
  }
  const others = ids.filter((id) => id !== me);
  if (!others.length) return { error: 'Choose someone to message.' };
  if (others.length > MAX_CHOSEN) return { error: `A message holds at most ${MAX_CHOSEN} others.` };
  return { ids: others };
}
