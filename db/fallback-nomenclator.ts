// The 18 registry service codes loaded at start-up so the mapping editor works offline
// (../shared/registry-protocol.md). The worker refreshes the list from the registry.
export const FALLBACK_NOMENCLATOR: ReadonlyArray<{ cod: string; denumire: string }> = [
  { cod: 'OE-1', denumire: 'REPARAȚIE' },
  { cod: 'OE-2', denumire: 'ÎNTREȚINERE' },
  { cod: 'OE-3', denumire: 'REVIZIE PERIODICĂ' },
  { cod: 'OE-4', denumire: 'REGLARE FUNCȚIONALĂ' },
  { cod: 'OE-5', denumire: 'MODIFICARE CONSTRUCTIVĂ' },
  { cod: 'OE-6', denumire: 'RECONSTRUCȚIE' },
  { cod: 'OE-7', denumire: 'ACTUALIZARE SOFTWARE' },
  { cod: 'OE-8', denumire: 'ÎNLOCUIRE SEZONIERĂ A ANVELOPELOR' },
  { cod: 'OE-D', denumire: 'AVARII GRAVE LA SISTEMUL DE DIRECȚIE' },
  { cod: 'OE-F', denumire: 'AVARII GRAVE LA SISTEMUL DE FRÂNARE' },
  { cod: 'OE-C', denumire: 'AVARII LA STRUCTURA DE REZISTENȚĂ A CAROSERIEI' },
  { cod: 'OE-S', denumire: 'AVARII LA STRUCTURA DE REZISTENȚĂ A ȘASIULUI' },
  { cod: 'OE-R', denumire: 'AVARII LA SISTEMUL DE REȚINERE ȘI PROTECȚIE' },
  { cod: 'OE-A', denumire: 'AVARII LA SISTEM AVANSAT DE ASISTENȚĂ' },
  { cod: 'OE-I', denumire: 'ISTORIC ODOMETRU ÎNMATRICULARE STRĂINĂ' },
  { cod: 'AITLV', denumire: 'INSPECȚIE TAHOGRAFE / LIMITATOARE DE VITEZĂ' },
  { cod: 'R-ODO', denumire: 'REPARAȚIE ODOMETRU' },
  { cod: 'I-ODO', denumire: 'ÎNLOCUIRE ODOMETRU' },
];
