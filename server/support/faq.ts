/**
 * Texts of our own support page (spec §1, §2 support tab, issue 13), used when the
 * organisation configures no external support address. Kept here, not in the client's
 * locale files, so they cost the first load nothing: build.ts renders them into static
 * pages (server/support/pages.ts) that the service worker precaches.
 *
 * Same topics, in the same order, in every language (tests/unit/support_pages_test.ts).
 */
import type { Locale } from "../i18n.ts";

export type TopicId =
  | "activation"
  | "pin"
  | "requests"
  | "cards"
  | "receipts"
  | "vat"
  | "offline";

export interface FaqText {
  /** The language's own name, for the language links. */
  language: string;
  /** <title> and <h1>. */
  title: string;
  intro: string;
  /** aria-label of the language links. */
  languages: string;
  topics: { id: TopicId; title: string; items: [question: string, answer: string][] }[];
}

export const FAQ: Record<Locale, FaqText> = {
  en: {
    language: "English",
    title: "QCard help and FAQ",
    intro:
      "Answers to the questions people ask most. This page is stored on your device, so it opens without a network too.",
    languages: "Language",
    topics: [
      {
        id: "activation",
        title: "Activation",
        items: [
          [
            "How do I activate QCard on my phone?",
            "Your organisation sends you an activation email with a 5-digit code. Open QCard, type the code on the keypad, tap 'Connect device', then choose your 6-digit PIN.",
          ],
          [
            "My code expired or I lost the email. What now?",
            "On the PIN pad, tap 'Send activation email', enter the email address of your account and answer your secret question. A new code is emailed to you; each code works once.",
          ],
        ],
      },
      {
        id: "pin",
        title: "PIN",
        items: [
          [
            "Which PIN can I choose?",
            "Six digits. For security reasons QCard refuses a digit repeated more than three times in a row, straight sequences such as 123456 or 987654, and repeated patterns such as 121212 or 123123.",
          ],
          [
            "What happens after wrong PINs?",
            "After five wrong PINs in a row, QCard removes its data from this device and you activate it again. Your requests, cards and receipts stay safe on the server.",
          ],
        ],
      },
      {
        id: "requests",
        title: "Requests",
        items: [
          [
            "How do I request an expense?",
            "In request mode, tap 'New request', choose the type, enter the amount (or a budget for recurring expenses), the currency and the purpose, then submit. Your approvers decide, level by level.",
          ],
          [
            "Why can I not create a request?",
            "Card payments whose receipt is overdue must get their receipt first; the badge counts what needs you. Your organisation may also not let you create requests.",
          ],
        ],
      },
      {
        id: "cards",
        title: "Virtual cards",
        items: [
          [
            "How do I get a card?",
            "Open an accepted request and tap 'Generate card'. The first time, set up 3-D Secure: a password and a mobile phone number used to confirm online payments.",
          ],
          [
            "How do I see the card number?",
            "In the card's detail, tap 'Show card details': the number and CVC show for 30 seconds. Freeze the card to refuse payments until you unfreeze it.",
          ],
        ],
      },
      {
        id: "receipts",
        title: "Receipts",
        items: [
          [
            "How do I add a receipt?",
            "Open the payment in Transactions and tap 'Attach receipt': take a photo or choose a JPEG, PNG or PDF file. Photos are made smaller on your phone before they are sent.",
          ],
          [
            "When is a receipt due?",
            "Your organisation gives a number of days after each card payment. An overdue receipt is shown in the badge and blocks new requests until it is attached.",
          ],
        ],
      },
      {
        id: "vat",
        title: "VAT",
        items: [
          [
            "How do I record the VAT of a payment?",
            "In the transaction, set the VAT type: unknown, no VAT or has VAT. Where your organisation asks for details, choose the country and up to three VAT codes; each VAT amount is computed for you.",
          ],
          [
            "Why can I not change the VAT?",
            "A reviewed transaction can no longer be changed, and refused or moved transactions have no VAT.",
          ],
        ],
      },
      {
        id: "offline",
        title: "Without a network",
        items: [
          [
            "Does QCard work offline?",
            "Yes. It shows the data saved on this device, encrypted with a key from your PIN. Comments, receipt notes, VAT and receipts you add offline wait on the device and are sent when the network returns.",
          ],
          [
            "What needs a network?",
            "Activation, approving or rejecting, creating a card and moving a payment to another expense: these always wait for the server's answer.",
          ],
        ],
      },
    ],
  },
  fr: {
    language: "Français",
    title: "Aide et FAQ de QCard",
    intro:
      "Les réponses aux questions les plus fréquentes. Cette page est enregistrée sur votre appareil : elle s’ouvre aussi sans réseau.",
    languages: "Langue",
    topics: [
      {
        id: "activation",
        title: "Activation",
        items: [
          [
            "Comment activer QCard sur mon téléphone ?",
            "Votre organisation vous envoie un e-mail d’activation avec un code à 5 chiffres. Ouvrez QCard, saisissez le code sur le clavier, touchez « Connecter l’appareil », puis choisissez votre code PIN à 6 chiffres.",
          ],
          [
            "Mon code a expiré ou j’ai perdu l’e-mail. Que faire ?",
            "Sur le clavier du PIN, touchez « Envoyer l’e-mail d’activation », saisissez l’adresse e-mail de votre compte et répondez à votre question secrète. Un nouveau code vous est envoyé ; chaque code ne sert qu’une fois.",
          ],
        ],
      },
      {
        id: "pin",
        title: "Code PIN",
        items: [
          [
            "Quel code PIN puis-je choisir ?",
            "Six chiffres. Pour des raisons de sécurité, QCard refuse un chiffre répété plus de trois fois de suite, les suites directes comme 123456 ou 987654 et les motifs répétés comme 121212 ou 123123.",
          ],
          [
            "Que se passe-t-il après des codes PIN erronés ?",
            "Après cinq codes PIN erronés de suite, QCard efface ses données de cet appareil et vous l’activez de nouveau. Vos demandes, cartes et justificatifs restent en sécurité sur le serveur.",
          ],
        ],
      },
      {
        id: "requests",
        title: "Demandes",
        items: [
          [
            "Comment demander une dépense ?",
            "En mode demande, touchez « Nouvelle demande », choisissez le type, saisissez le montant (ou un budget pour une dépense récurrente), la devise et l’objet, puis soumettez. Vos approbateurs décident, niveau par niveau.",
          ],
          [
            "Pourquoi ne puis-je pas créer de demande ?",
            "Les paiements par carte dont le justificatif est en retard doivent d’abord recevoir leur justificatif ; le badge compte ce qui vous attend. Votre organisation peut aussi ne pas vous autoriser à créer des demandes.",
          ],
        ],
      },
      {
        id: "cards",
        title: "Cartes virtuelles",
        items: [
          [
            "Comment obtenir une carte ?",
            "Ouvrez une demande acceptée et touchez « Générer la carte ». La première fois, configurez le 3-D Secure : un mot de passe et un numéro de mobile qui servent à confirmer les paiements en ligne.",
          ],
          [
            "Comment voir le numéro de la carte ?",
            "Dans le détail de la carte, touchez « Afficher les données de la carte » : le numéro et le CVC s’affichent 30 secondes. Gelez la carte pour refuser les paiements jusqu’à ce que vous la dégeliez.",
          ],
        ],
      },
      {
        id: "receipts",
        title: "Justificatifs",
        items: [
          [
            "Comment ajouter un justificatif ?",
            "Ouvrez le paiement dans Transactions et touchez « Joindre un justificatif » : prenez une photo ou choisissez un fichier JPEG, PNG ou PDF. Les photos sont réduites sur votre téléphone avant l’envoi.",
          ],
          [
            "Quand un justificatif est-il dû ?",
            "Votre organisation fixe un nombre de jours après chaque paiement par carte. Un justificatif en retard apparaît dans le badge et bloque les nouvelles demandes jusqu’à ce qu’il soit joint.",
          ],
        ],
      },
      {
        id: "vat",
        title: "TVA",
        items: [
          [
            "Comment saisir la TVA d’un paiement ?",
            "Dans l’opération, indiquez le type de TVA : inconnu, sans TVA ou avec TVA. Si votre organisation demande le détail, choisissez le pays et jusqu’à trois codes de TVA ; chaque montant de TVA est calculé pour vous.",
          ],
          [
            "Pourquoi ne puis-je pas modifier la TVA ?",
            "Une opération contrôlée ne peut plus être modifiée, et les opérations refusées ou déplacées n’ont pas de TVA.",
          ],
        ],
      },
      {
        id: "offline",
        title: "Sans réseau",
        items: [
          [
            "QCard fonctionne-t-il hors ligne ?",
            "Oui. Il affiche les données enregistrées sur cet appareil, chiffrées avec une clé issue de votre code PIN. Les commentaires, notes, TVA et justificatifs ajoutés hors ligne attendent sur l’appareil et partent au retour du réseau.",
          ],
          [
            "Qu’est-ce qui demande le réseau ?",
            "L’activation, approuver ou refuser, créer une carte et déplacer un paiement vers une autre dépense : ces actions attendent toujours la réponse du serveur.",
          ],
        ],
      },
    ],
  },
  de: {
    language: "Deutsch",
    title: "QCard-Hilfe und häufige Fragen",
    intro:
      "Antworten auf die häufigsten Fragen. Diese Seite ist auf Ihrem Gerät gespeichert und öffnet sich daher auch ohne Netzwerk.",
    languages: "Sprache",
    topics: [
      {
        id: "activation",
        title: "Aktivierung",
        items: [
          [
            "Wie aktiviere ich QCard auf meinem Telefon?",
            "Ihre Organisation sendet Ihnen eine Aktivierungs-E-Mail mit einem 5-stelligen Code. Öffnen Sie QCard, geben Sie den Code auf dem Tastenfeld ein, tippen Sie auf „Gerät verbinden“ und wählen Sie dann Ihre 6-stellige PIN.",
          ],
          [
            "Mein Code ist abgelaufen oder die E-Mail ist weg. Was nun?",
            "Tippen Sie auf dem PIN-Feld auf „Aktivierungs-E-Mail senden“, geben Sie die E-Mail-Adresse Ihres Kontos ein und beantworten Sie Ihre Sicherheitsfrage. Sie erhalten einen neuen Code per E-Mail; jeder Code gilt nur einmal.",
          ],
        ],
      },
      {
        id: "pin",
        title: "PIN",
        items: [
          [
            "Welche PIN kann ich wählen?",
            "Sechs Ziffern. Aus Sicherheitsgründen lehnt QCard eine Ziffer ab, die mehr als dreimal hintereinander vorkommt, direkte Folgen wie 123456 oder 987654 und wiederholte Muster wie 121212 oder 123123.",
          ],
          [
            "Was passiert nach falschen PINs?",
            "Nach fünf falschen PINs in Folge löscht QCard seine Daten von diesem Gerät, und Sie aktivieren es erneut. Ihre Anträge, Karten und Belege bleiben sicher auf dem Server.",
          ],
        ],
      },
      {
        id: "requests",
        title: "Anträge",
        items: [
          [
            "Wie beantrage ich eine Ausgabe?",
            "Tippen Sie im Antragsmodus auf „Neuer Antrag“, wählen Sie die Art, geben Sie den Betrag (oder ein Budget für wiederkehrende Ausgaben), die Währung und den Zweck ein und reichen Sie den Antrag ein. Ihre Genehmigenden entscheiden Stufe für Stufe.",
          ],
          [
            "Warum kann ich keinen Antrag erstellen?",
            "Kartenzahlungen mit überfälligem Beleg brauchen zuerst ihren Beleg; das Abzeichen zählt, was auf Sie wartet. Ihre Organisation kann Ihnen außerdem das Erstellen von Anträgen verwehren.",
          ],
        ],
      },
      {
        id: "cards",
        title: "Virtuelle Karten",
        items: [
          [
            "Wie bekomme ich eine Karte?",
            "Öffnen Sie einen genehmigten Antrag und tippen Sie auf „Karte erstellen“. Beim ersten Mal richten Sie 3-D Secure ein: ein Passwort und eine Mobilnummer, mit denen Sie Onlinezahlungen bestätigen.",
          ],
          [
            "Wie sehe ich die Kartennummer?",
            "Tippen Sie in den Kartendetails auf „Kartendaten anzeigen“: Nummer und CVC sind 30 Sekunden lang sichtbar. Sperren Sie die Karte, um Zahlungen abzulehnen, bis Sie sie wieder entsperren.",
          ],
        ],
      },
      {
        id: "receipts",
        title: "Belege",
        items: [
          [
            "Wie füge ich einen Beleg hinzu?",
            "Öffnen Sie die Zahlung unter Transaktionen und tippen Sie auf „Beleg hinzufügen“: Nehmen Sie ein Foto auf oder wählen Sie eine JPEG-, PNG- oder PDF-Datei. Fotos werden vor dem Senden auf Ihrem Telefon verkleinert.",
          ],
          [
            "Wann ist ein Beleg fällig?",
            "Ihre Organisation legt eine Anzahl von Tagen nach jeder Kartenzahlung fest. Ein überfälliger Beleg erscheint im Abzeichen und blockiert neue Anträge, bis er hinzugefügt ist.",
          ],
        ],
      },
      {
        id: "vat",
        title: "Mehrwertsteuer",
        items: [
          [
            "Wie erfasse ich die MwSt. einer Zahlung?",
            "Legen Sie in der Transaktion die MwSt.-Art fest: unbekannt, ohne MwSt. oder mit MwSt. Wenn Ihre Organisation Details verlangt, wählen Sie das Land und bis zu drei MwSt.-Codes; jeder MwSt.-Betrag wird für Sie berechnet.",
          ],
          [
            "Warum kann ich die MwSt. nicht ändern?",
            "Eine geprüfte Transaktion kann nicht mehr geändert werden, und abgelehnte oder verschobene Transaktionen haben keine MwSt.",
          ],
        ],
      },
      {
        id: "offline",
        title: "Ohne Netzwerk",
        items: [
          [
            "Funktioniert QCard offline?",
            "Ja. Es zeigt die auf diesem Gerät gespeicherten Daten, verschlüsselt mit einem Schlüssel aus Ihrer PIN. Kommentare, Belegnotizen, MwSt.-Angaben und Belege, die Sie offline hinzufügen, warten auf dem Gerät und werden gesendet, sobald das Netzwerk zurück ist.",
          ],
          [
            "Was braucht ein Netzwerk?",
            "Die Aktivierung, das Genehmigen oder Ablehnen, das Erstellen einer Karte und das Umbuchen einer Zahlung: Diese Aktionen warten immer auf die Antwort des Servers.",
          ],
        ],
      },
    ],
  },
  es: {
    language: "Español",
    title: "Ayuda y preguntas frecuentes de QCard",
    intro:
      "Respuestas a las preguntas más habituales. Esta página está guardada en su dispositivo, así que también se abre sin conexión.",
    languages: "Idioma",
    topics: [
      {
        id: "activation",
        title: "Activación",
        items: [
          [
            "¿Cómo activo QCard en mi teléfono?",
            "Su organización le envía un correo de activación con un código de 5 dígitos. Abra QCard, escriba el código en el teclado, pulse «Conectar dispositivo» y elija su PIN de 6 dígitos.",
          ],
          [
            "Mi código ha caducado o he perdido el correo. ¿Qué hago?",
            "En el teclado del PIN, pulse «Enviar correo de activación», introduzca la dirección de correo de su cuenta y responda a su pregunta secreta. Recibirá un código nuevo por correo; cada código solo sirve una vez.",
          ],
        ],
      },
      {
        id: "pin",
        title: "PIN",
        items: [
          [
            "¿Qué PIN puedo elegir?",
            "Seis dígitos. Por motivos de seguridad, QCard rechaza un dígito repetido más de tres veces seguidas, las secuencias directas como 123456 o 987654 y los patrones repetidos como 121212 o 123123.",
          ],
          [
            "¿Qué ocurre tras varios PIN incorrectos?",
            "Tras cinco PIN incorrectos seguidos, QCard borra sus datos de este dispositivo y tendrá que activarlo de nuevo. Sus solicitudes, tarjetas y recibos siguen seguros en el servidor.",
          ],
        ],
      },
      {
        id: "requests",
        title: "Solicitudes",
        items: [
          [
            "¿Cómo solicito un gasto?",
            "En el modo de solicitud, pulse «Nueva solicitud», elija el tipo, introduzca el importe (o un presupuesto para gastos recurrentes), la moneda y el motivo, y envíela. Sus aprobadores deciden nivel por nivel.",
          ],
          [
            "¿Por qué no puedo crear una solicitud?",
            "Los pagos con tarjeta cuyo recibo está atrasado necesitan primero su recibo; el indicador cuenta lo que requiere su atención. También puede que su organización no le permita crear solicitudes.",
          ],
        ],
      },
      {
        id: "cards",
        title: "Tarjetas virtuales",
        items: [
          [
            "¿Cómo obtengo una tarjeta?",
            "Abra una solicitud aceptada y pulse «Generar tarjeta». La primera vez, configure 3-D Secure: una contraseña y un número de móvil con los que se confirman los pagos en línea.",
          ],
          [
            "¿Cómo veo el número de la tarjeta?",
            "En el detalle de la tarjeta, pulse «Mostrar los datos de la tarjeta»: el número y el CVC se muestran durante 30 segundos. Congele la tarjeta para rechazar pagos hasta que la descongele.",
          ],
        ],
      },
      {
        id: "receipts",
        title: "Recibos",
        items: [
          [
            "¿Cómo añado un recibo?",
            "Abra el pago en Transacciones y pulse «Adjuntar recibo»: haga una foto o elija un archivo JPEG, PNG o PDF. Las fotos se reducen en su teléfono antes de enviarlas.",
          ],
          [
            "¿Cuándo vence un recibo?",
            "Su organización fija un número de días tras cada pago con tarjeta. Un recibo atrasado aparece en el indicador y bloquea las nuevas solicitudes hasta que se adjunte.",
          ],
        ],
      },
      {
        id: "vat",
        title: "IVA",
        items: [
          [
            "¿Cómo registro el IVA de un pago?",
            "En la transacción, indique el tipo de IVA: desconocido, sin IVA o con IVA. Si su organización pide el detalle, elija el país y hasta tres códigos de IVA; cada importe de IVA se calcula automáticamente.",
          ],
          [
            "¿Por qué no puedo cambiar el IVA?",
            "Una transacción revisada ya no se puede cambiar, y las transacciones rechazadas o trasladadas no tienen IVA.",
          ],
        ],
      },
      {
        id: "offline",
        title: "Sin conexión",
        items: [
          [
            "¿Funciona QCard sin conexión?",
            "Sí. Muestra los datos guardados en este dispositivo, cifrados con una clave derivada de su PIN. Los comentarios, notas, datos de IVA y recibos que añada sin conexión esperan en el dispositivo y se envían cuando vuelve la red.",
          ],
          [
            "¿Qué necesita conexión?",
            "La activación, aprobar o rechazar, crear una tarjeta y trasladar un pago a otro gasto: estas acciones siempre esperan la respuesta del servidor.",
          ],
        ],
      },
    ],
  },
};
