/**
 * The Romanian vocabulary of the trade, as workshops write operation names, tied to the words
 * the registry's nomenclator uses in its names (normalised: lower case, no diacritics). The
 * suggestion matches these concept words against the nomenclator's own `denumire`, so a
 * refreshed nomenclator that keeps its wording keeps working; no registry code is named here.
 *
 * Keys are word stems: a name's word matches a key when it starts with it ("anvelopelor"
 * matches "anvelop"). Values are stems of nomenclator words. Order does not matter.
 */
export const TRADE_VOCABULARY: ReadonlyArray<readonly [string, readonly string[]]> = [
  // periodic service
  ['revizi', ['revizie', 'periodic']],
  ['rev', ['revizie']],
  ['periodic', ['periodic']],
  ['anual', ['revizie', 'periodic']],
  ['service', ['revizie']],
  // maintenance: consumables and wear parts
  ['intretin', ['intretinere']],
  ['mentenant', ['intretinere']],
  ['ulei', ['intretinere']],
  ['filtr', ['intretinere']],
  ['lichid', ['intretinere']],
  ['antigel', ['intretinere']],
  ['bujii', ['intretinere']],
  ['bujie', ['intretinere']],
  ['curea', ['intretinere']],
  ['curele', ['intretinere']],
  ['distributi', ['intretinere']],
  ['placut', ['intretinere']],
  ['disc', ['intretinere']],
  ['saboti', ['intretinere']],
  ['acumulator', ['intretinere']],
  ['baterie', ['intretinere']],
  ['stergator', ['intretinere']],
  ['climatiz', ['intretinere']],
  ['freon', ['intretinere']],
  ['clima', ['intretinere']],
  ['igieniz', ['intretinere']],
  ['consumabil', ['intretinere']],
  ['becuri', ['intretinere']],
  // repair of mechanical and electrical assemblies
  ['repar', ['reparatie']],
  ['remedi', ['reparatie']],
  ['motor', ['reparatie']],
  ['cutie', ['reparatie']],
  ['viteze', ['reparatie']],
  ['ambreiaj', ['reparatie']],
  ['amortizo', ['reparatie']],
  ['electric', ['reparatie']],
  ['alternator', ['reparatie']],
  ['electromotor', ['reparatie']],
  ['turbo', ['reparatie']],
  ['turbin', ['reparatie']],
  ['injecto', ['reparatie']],
  ['esapament', ['reparatie']],
  ['evacuare', ['reparatie']],
  ['rulment', ['reparatie']],
  ['planetar', ['reparatie']],
  ['pompa', ['reparatie']],
  ['suspensi', ['reparatie']],
  // adjustment
  ['regl', ['reglare', 'functional']],
  ['aliniere', ['reglare']],
  ['geometri', ['reglare']],
  ['convergent', ['reglare']],
  ['jocuri', ['reglare']],
  ['ajust', ['reglare']],
  // constructive change, reconstruction
  ['modific', ['modificare', 'constructiv']],
  ['transform', ['modificare', 'constructiv']],
  ['tuning', ['modificare']],
  ['sport', ['modificare']],
  ['remorc', ['modificare']],
  ['carlig', ['modificare']],
  ['gpl', ['modificare']],
  ['reconstru', ['reconstructie']],
  ['refacere', ['reconstructie']],
  // software
  ['software', ['software']],
  ['soft', ['software']],
  ['firmware', ['software']],
  ['program', ['software']],
  ['reprogram', ['software']],
  ['ecu', ['software']],
  ['actualiz', ['actualizare']],
  ['update', ['actualizare', 'software']],
  // tyres and the season
  ['anvelop', ['anvelop']],
  ['pneu', ['anvelop']],
  ['cauciuc', ['anvelop']],
  ['roti', ['anvelop']],
  ['roata', ['anvelop']],
  ['jante', ['anvelop']],
  ['vulcaniz', ['anvelop']],
  ['echilibr', ['anvelop']],
  ['sezon', ['sezonier']],
  ['vara', ['sezonier']],
  ['iarna', ['sezonier']],
  // damage and the safety systems
  ['avari', ['avarii']],
  ['accident', ['avarii']],
  ['impact', ['avarii']],
  ['coliziun', ['avarii']],
  ['grav', ['grave']],
  ['frana', ['franare']],
  ['frane', ['franare']],
  ['franar', ['franare']],
  ['directi', ['directie']],
  ['servodirect', ['directie']],
  ['caroser', ['caroseriei']],
  ['lonjeron', ['caroseriei', 'structura', 'rezistenta']],
  ['sasiu', ['sasiului']],
  ['structur', ['structura']],
  ['centur', ['retinere', 'protectie']],
  ['airbag', ['retinere', 'protectie']],
  ['pretension', ['retinere']],
  ['asistent', ['asistenta']],
  ['adas', ['asistenta', 'avansat']],
  ['radar', ['asistenta', 'avansat']],
  ['senzor', ['asistenta']],
  ['camera', ['asistenta']],
  ['calibr', ['asistenta']],
  // odometer, tachograph
  ['odometr', ['odometru']],
  ['kilometraj', ['odometru']],
  ['km', ['odometru']],
  ['bord', ['odometru']],
  ['ceasuri', ['odometru']],
  ['tahograf', ['tahograf']],
  ['limitator', ['limitatoare']],
  ['inspecti', ['inspectie']],
  ['istoric', ['istoric']],
  ['strainatate', ['straina']],
  ['strain', ['straina']],
  ['import', ['straina']],
  ['inmatricul', ['inmatriculare']],
  // generic actions: weak on their own (see WEAK_WORDS)
  ['inloc', ['inlocuire']],
  ['schimb', ['inlocuire']],
  ['montaj', ['inlocuire']],
  ['corect', ['reparatie']],
];

/**
 * Words that say how, not what ("schimb", "înlocuire", "montaj", "verificare"): they only
 * break ties between codes the rest of the name already points at.
 */
export const WEAK_WORDS: ReadonlySet<string> = new Set(['inlocuire']);

/** Abbreviations expanded before matching ("înloc." → "inlocuire", "rev." → "revizie"). */
export const ABBREVIATIONS: ReadonlyMap<string, string> = new Map([
  ['inloc', 'inlocuire'],
  ['inl', 'inlocuire'],
  ['sch', 'schimb'],
  ['rev', 'revizie'],
  ['rep', 'reparatie'],
  ['regl', 'reglare'],
  ['mod', 'modificare'],
  ['act', 'actualizare'],
  ['anv', 'anvelope'],
]);

/** Words that carry nothing for the choice. */
export const STOP_WORDS: ReadonlySet<string> = new Set(['a', 'al', 'ale', 'la', 'de', 'din', 'si', 'cu', 'pe', 'in', 'sistemul', 'sistem', 'dupa', 'pentru', 'fata', 'spate', 'fat', 'sp']);
