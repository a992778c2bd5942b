// Words and formats: English and Mexican Spanish, money per currency and locale, and
// dates in the business time zone (America/Mexico_City).

export const businessZone = 'America/Mexico_City';

const es = {
  'Sign in': 'Iniciar sesión', 'Sign out': 'Cerrar sesión', 'Sign in as the development user': 'Entrar como el usuario de desarrollo',
  'Sign in with your identity provider': 'Entrar con tu proveedor de identidad',
  'Overview': 'Resumen', 'Wallets': 'Carteras', 'Transactions': 'Movimientos', 'Budgets': 'Presupuestos', 'Goals': 'Metas',
  'Debts': 'Deudas', 'Recurring': 'Recurrentes', 'Reports': 'Reportes', 'Team': 'Equipo', 'API keys': 'Claves de API', 'Proposals': 'Propuestas',
  'An API key asks for your approval': 'Una clave de API pide tu aprobación', 'Review': 'Revisar',
  'Webhooks': 'Webhooks', 'Audit log': 'Bitácora', 'Profile': 'Perfil', 'Categories': 'Categorías',
  'Record': 'Registrar', 'Income': 'Ingreso', 'Expense': 'Gasto', 'Transfer': 'Transferencia', 'Amount': 'Monto',
  'Wallet': 'Cartera', 'To wallet': 'A la cartera', 'Category': 'Categoría', 'Description': 'Descripción', 'Date': 'Fecha',
  'Save': 'Guardar', 'Cancel': 'Cancelar', 'Delete': 'Eliminar', 'Edit': 'Editar', 'Undo': 'Deshacer', 'Create': 'Crear',
  'Name': 'Nombre', 'Currency': 'Moneda', 'Balance': 'Saldo', 'Initial balance': 'Saldo inicial', 'Type': 'Tipo',
  'New wallet': 'Nueva cartera', 'New budget': 'Nuevo presupuesto', 'New goal': 'Nueva meta', 'New debt': 'Nueva deuda',
  'New category': 'Nueva categoría', 'Total': 'Total', 'Search': 'Buscar', 'From': 'Desde', 'To': 'Hasta', 'All': 'Todos',
  'Previous': 'Anterior', 'Next': 'Siguiente', 'Page': 'Página', 'of': 'de', 'Nothing here yet.': 'Nada por aquí todavía.',
  'Deleted.': 'Eliminado.', 'Saved.': 'Guardado.', 'Recorded.': 'Registrado.', 'spent of': 'gastado de',
  'remaining': 'restante', 'Alert at': 'Alerta al', 'Start': 'Inicio', 'End': 'Fin', 'Period': 'Periodo',
  'Target': 'Objetivo', 'Deposit': 'Depositar', 'Withdraw': 'Retirar', 'Deadline': 'Fecha límite',
  'Creditor': 'Acreedor', 'Pending': 'Pendiente', 'Paid': 'Pagado', 'Pay': 'Pagar', 'Pay now': 'Pagar ahora',
  'Next payment': 'Próximo pago', 'Skipped': 'Omitidos', 'Frequency': 'Frecuencia', 'Expenses by category': 'Gastos por categoría', 'Download CSV': 'Descargar CSV',
  'Download PDF': 'Descargar PDF', 'Members': 'Miembros', 'Role': 'Rol', 'Email': 'Correo', 'Invite': 'Invitar',
  'Remove': 'Quitar', 'Scopes': 'Permisos', 'Revoke': 'Revocar', 'Copy': 'Copiar', 'Copied.': 'Copiado.',
  'This key is shown once. Copy it now.': 'Esta clave se muestra una sola vez. Cópiala ahora.',
  'Secret': 'Secreto', 'Deliveries': 'Entregas', 'Redeliver': 'Reenviar', 'Events': 'Eventos', 'Active': 'Activo',
  'Language': 'Idioma', 'Theme': 'Tema', 'Light': 'Claro', 'Dark': 'Oscuro', 'System': 'Sistema',
  'Chat channel': 'Canal de chat', 'Get a link code': 'Obtener un código de enlace', 'Linked phone': 'Teléfono enlazado',
  'Not linked.': 'Sin enlazar.', 'Unlink': 'Desenlazar', 'Workspace': 'Espacio', 'Personal': 'Personal',
  'New team': 'Nuevo equipo', 'Live': 'En vivo', 'Offline': 'Sin conexión', 'Income this month': 'Ingresos del mes',
  'Expenses this month': 'Gastos del mes', 'When': 'Cuándo', 'Action': 'Acción', 'Actor': 'Actor',
  'URL': 'URL', 'Status': 'Estado', 'Attempts': 'Intentos', 'Test': 'Probar', 'Menu': 'Menú',
  'Skip to content': 'Saltar al contenido', 'Something went wrong.': 'Algo salió mal.',
  'Workspace total': 'Total del espacio', 'Close': 'Cerrar', 'Default': 'Predeterminada',
  'Expires': 'Vence', 'Prefix': 'Prefijo', 'Code': 'Código', 'valid for 10 minutes': 'válido por 10 minutos',
  'Correct': 'Corregir', 'Filters': 'Filtros', 'Apply': 'Aplicar',
  'No way to sign in is configured on this server.': 'Este servidor no tiene configurada ninguna forma de iniciar sesión.',
  // amounts typed in, and the API's field messages (values stand as #, see say)
  'Amount received': 'Monto recibido', 'Did you mean': '¿Quisiste decir', 'or': 'o',
  'Write an amount such as': 'Escribe un monto como', 'cannot be negative': 'no puede ser negativo',
  'must have at most # digits before the decimal sign': 'debe tener como máximo # dígitos antes del signo decimal',
  'must have at most # decimal places': 'debe tener como máximo # decimales', 'must be greater than #': 'debe ser mayor que #',
  'must be less than #^#': 'debe ser menor que #^#', 'is required': 'es obligatorio',
  'must be at most # characters long': 'debe tener como máximo # caracteres', 'must be # to # characters long': 'debe tener de # a # caracteres',
  'is required for a transfer from # to #': 'es obligatorio en una transferencia de # a #',
  'is required for a transfer': 'es obligatorio en una transferencia', 'must differ from walletId': 'debe ser otra cartera',
  'is only allowed for a transfer': 'solo va en una transferencia',
  'must equal amount for a transfer within one currency': 'debe ser igual al monto en una transferencia en una sola moneda',
  'must not be before startDate': 'no puede ser antes del inicio',
  'is more than the # # saved in the goal': 'es más que los # # ahorrados en la meta',
  'is more than the # # still owed': 'es más que los # # que se deben', 'holds # but the goal saves #': 'es en # pero la meta ahorra en #',
  'holds # but the debt is in #': 'es en # pero la deuda está en #',
  // reports
  'This month': 'Este mes', 'Last month': 'Mes pasado',
  'Last three months': 'Últimos tres meses', 'This year': 'Este año', 'Not before the start date': 'No antes de la fecha de inicio',
  'Income and expenses by month': 'Ingresos y gastos por mes', 'Other': 'Otras', 'Uncategorized': 'Sin categoría',
  'Not drawn, no exchange rate to': 'Sin dibujar, no hay tipo de cambio a', 'Expenses': 'Gastos',
  // editing and deleting goals, debts, recurring payments, the team, webhooks and keys
  'This cannot be undone.': 'Esto no se puede deshacer.', 'Paused': 'En pausa', 'Pause': 'Pausar', 'Resume': 'Reanudar',
  'Delete workspace': 'Eliminar espacio', 'Leave': 'Salir', 'Cancel invitation': 'Cancelar invitación',
  'Everything in it is deleted for every member, and its API keys stop working.': 'Todo lo que contiene se elimina para todos los miembros, y sus claves de API dejan de funcionar.',
  'You lose access to it until someone invites you again.': 'Pierdes el acceso hasta que alguien te invite de nuevo.',
  'The invitation stops working.': 'La invitación deja de funcionar.', 'They lose access to this workspace.': 'Pierde el acceso a este espacio.',
  'Whatever uses this key stops working at once.': 'Lo que use esta clave deja de funcionar de inmediato.', 'Rotate secret': 'Cambiar secreto',
  'Undo since…': 'Deshacer desde…', 'Since': 'Desde', 'Reversed': 'Revertidos',
  'The old secret stops working now; the new one is shown once.': 'El secreto anterior deja de funcionar ahora; el nuevo se muestra una sola vez.',
  // the audit log, the webhook's test, a budget over its amount, an empty search
  'API reference': 'Referencia de la API', 'Over by': 'Excedido por', 'No transaction matches': 'Ningún movimiento coincide con',
  'Test sent': 'Prueba enviada', 'Colour': 'Color',
  // keyboard shortcuts
  'Keyboard shortcuts': 'Atajos de teclado', 'New transaction': 'Nuevo movimiento', 'Search transactions': 'Buscar movimientos',
  'Next page': 'Página siguiente', 'Previous page': 'Página anterior',
  // editing wallets, categories, tags, budgets; bulk changes of transactions
  'Tags': 'Etiquetas', 'Tag': 'Etiqueta', 'Split': 'Dividir', 'New tag': 'Nueva etiqueta', 'None': 'Ninguna', 'Archive': 'Archivar', 'Done.': 'Hecho.',
  'It leaves the lists; what already uses it keeps it.': 'Sale de las listas; lo que ya la usa la conserva.',
  'Select': 'Seleccionar', 'Select all on this page': 'Seleccionar todos en esta página', 'selected': 'seleccionados',
  'Recategorize': 'Cambiar categoría', 'Delete selected': 'Eliminar seleccionados', 'Selected transactions': 'Movimientos seleccionados',
  // the wallet page, the cleared mark and the export
  'Cleared': 'Conciliado', 'Export all data': 'Exportar todos los datos',
  // exchange rates
  'Exchange rates': 'Tipos de cambio', 'no exchange rate in force': 'sin tipo de cambio vigente',
  'Last known': 'Último', 'See and set exchange rates': 'Ver y fijar tipos de cambio', 'Rate': 'Tipo',
  'Source': 'Fuente', 'In force on': 'Vigentes el', 'Enter a rate': 'Fijar un tipo', 'Import the ECB\'s rates': 'Importar los del BCE',
  'Entered by hand': 'A mano', 'ECB': 'BCE', 'ECB, shipped history': 'BCE, historial incluido',
  'a decimal with a point, such as 17.25': 'un decimal con punto, como 17.25',
  'Import': 'Importar',
};

// terms are the words for the codes the API answers with: roles, periods, kinds.
const terms = {
  owner: ['Owner', 'Propietario'], admin: ['Admin', 'Administrador'], collaborator: ['Collaborator', 'Colaborador'],
  reader: ['Reader', 'Lector'], active: ['Active', 'Activo'], invited: ['Invited', 'Invitado'], pending: ['Pending', 'Pendiente'],
  succeeded: ['Delivered', 'Entregado'], failed: ['Failed', 'Fallido'],
  weekly: ['Weekly', 'Semanal'], biweekly: ['Every two weeks', 'Catorcenal'], semi_monthly: ['Twice a month', 'Quincenal'],
  monthly: ['Monthly', 'Mensual'], quarterly: ['Quarterly', 'Trimestral'], yearly: ['Yearly', 'Anual'],
  cash: ['Cash', 'Efectivo'], card: ['Card', 'Tarjeta'], bank_account: ['Bank account', 'Cuenta bancaria'],
  digital_wallet: ['Digital wallet', 'Cartera digital'], income: ['Income', 'Ingreso'], expense: ['Expense', 'Gasto'],
  transfer: ['Transfer', 'Transferencia'], goal_deposit: ['Goal deposit', 'Depósito a meta'],
  goal_withdrawal: ['Goal withdrawal', 'Retiro de meta'],
  // why a sign-in came back (/auth/callback)
  state_mismatch: ['The sign-in was started in another browser or tab. Start it again here.', 'El inicio de sesión empezó en otro navegador o pestaña. Empiézalo de nuevo aquí.'],
  expired: ['The sign-in took too long or was already used. Start it again.', 'El inicio de sesión tardó demasiado o ya se usó. Empiézalo de nuevo.'],
  refused: ['The identity provider did not sign you in.', 'El proveedor de identidad no inició tu sesión.'],
  provider_unavailable: ['The identity provider cannot be reached. Try again in a moment.', 'No se puede contactar al proveedor de identidad. Intenta de nuevo en un momento.'],
  exchange_failed: ['The identity provider refused to finish the sign-in. Start it again.', 'El proveedor de identidad no terminó el inicio de sesión. Empiézalo de nuevo.'],
  bad_token: ['The identity provider\'s answer could not be verified.', 'No se pudo verificar la respuesta del proveedor de identidad.'],
  // errors the API answers with, by code
  WALLET_NOT_FOUND: ['That wallet does not exist any more.', 'Esa cartera ya no existe.'],
  CATEGORY_NOT_FOUND: ['That category does not exist any more.', 'Esa categoría ya no existe.'],
  FORBIDDEN: ['Your role does not allow this.', 'Tu rol no permite esto.'],
  bad_identity: ['Your account needs a verified email address to sign in.', 'Tu cuenta necesita un correo verificado para entrar.'],
  // the audit log's actions, records and actors
  create: ['Created', 'Creación de'], update: ['Changed', 'Cambio de'], delete: ['Deleted', 'Eliminación de'],
  user: ['user', 'usuario'], workspace: ['workspace', 'espacio'], wallet: ['wallet', 'cartera'], category: ['category', 'categoría'],
  tag: ['tag', 'etiqueta'], transaction: ['transaction', 'movimiento'], member: ['member', 'miembro'],
  invitation: ['invitation', 'invitación'], api_key: ['API key', 'clave de API'], whatsapp_link: ['chat link', 'enlace de chat'],
  recurring: ['recurring payment', 'pago recurrente'], budget: ['budget', 'presupuesto'], goal: ['goal', 'meta'],
  debt: ['debt', 'deuda'], webhook: ['webhook', 'webhook'], exchange_rates: ['exchange rates', 'tipos de cambio'],
  channel: ['chat channel', 'canal de chat'], system: ['system', 'sistema'], team: ['team', 'equipo'],
};

// learn adds the words of a page fetched when opened (import.js).
export const learn = (phrases, codes) => Object.assign(es, phrases) && Object.assign(terms, codes);

// term names an API code in the person's language (the code itself when unknown).
export function term(code) {
  const words = terms[code];
  return words ? words[locale === 'es-MX' ? 1 : 0] : code;
}

let locale = 'en';
let numbers = 'en';

// setLanguage sets the words (English or Mexican Spanish) and the way numbers are
// written: the profile's own locale (es-ES and de write 1.250,50), plain "es" Mexico's.
export function setLanguage(lang) {
  locale = lang && lang.toLowerCase().startsWith('es') ? 'es-MX' : 'en';
  document.documentElement.lang = locale === 'es-MX' ? 'es' : 'en';
  try { numbers = lang && lang.toLowerCase() !== 'es' ? Intl.NumberFormat.supportedLocalesOf(lang)[0] || locale : locale; } catch { numbers = locale; }
}

export function language() { return locale; }
export function numberLocale() { return numbers; }

// t translates an English phrase.
export function t(text) {
  return (locale === 'es-MX' && es[text]) || text;
}

// say translates a message holding values, the API's field messages ("must be at most
// 50 characters long") as the app's own: numbers, dates, currency codes and quoted names
// stand as # in the dictionary and are put back in order.
export function say(message) {
  const found = [];
  const key = message.replace(/"[^"]*"|\d[\d.,-]*\d|\d|\b[A-Z]{3}\b/g, (v) => { found.push(v); return '#'; });
  return locale === 'es-MX' && es[key] ? es[key].replace(/#/g, () => found.shift()) : message;
}

const moneyFormats = new Map();

// money formats an amount (a number or a decimal string from the API) in its currency.
export function money(amount, currency) {
  const key = numbers + currency;
  let f = moneyFormats.get(key);
  if (!f) {
    try {
      f = new Intl.NumberFormat(numbers, { style: 'currency', currency: currency || 'MXN' });
    } catch {
      f = new Intl.NumberFormat(numbers, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    }
    moneyFormats.set(key, f);
  }
  return f.format(typeof amount === 'string' ? amount : Number(amount));
}

// day formats a business date (YYYY-MM-DD) as it is: no time zone shifts it.
export function day(iso) {
  if (!iso) return '';
  const [y, m, d] = iso.slice(0, 10).split('-').map(Number);
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(Date.UTC(y, m - 1, d)));
}

// moment formats an instant in the business time zone.
export function moment(iso) {
  if (!iso) return '';
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: businessZone }).format(new Date(iso));
}

// today is the business day now, as YYYY-MM-DD.
export function today() {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone: businessZone, year: 'numeric', month: '2-digit', day: '2-digit' })
    .formatToParts(new Date());
  const get = (type) => parts.find((p) => p.type === type).value;
  return `${get('year')}-${get('month')}-${get('day')}`;
}

// monthName names a month given as YYYY-MM.
export function monthName(ym) {
  const [y, m] = ym.split('-').map(Number);
  return new Intl.DateTimeFormat(locale, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(Date.UTC(y, m - 1, 1)));
}

// period names a range of days (YYYY-MM-DD) as a person says it: whole months by their
// names ("October 2026", "September – October 2026"), other ranges by their days.
export function period(from, to) {
  const [a, b] = [from, to].map((d) => new Date(d + 'T00:00:00Z'));
  const whole = from.endsWith('-01') && new Date(+b + 864e5).getUTCDate() === 1;
  return new Intl.DateTimeFormat(locale, whole ? { month: 'long', year: 'numeric', timeZone: 'UTC' } : { dateStyle: 'medium', timeZone: 'UTC' })
    .formatRange(a, b);
}
